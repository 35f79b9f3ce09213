import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { listItem, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Cross-cutting compatibility with the clients that already use this contract
 * (`../shared/notes/real-clients.md`): what they send must work unchanged.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp();
});
afterAll(() => t?.close());

describe('browser agents (CORS)', () => {
  it('answers the preflight of every API route a browser agent pays through', async () => {
    const item = await createSaleItem(t.runtime.deps);
    for (const [method, url] of [
      ['POST', `/api/v1/items/${item.itemId}/acquire`],
      ['POST', '/api/v1/items'],
      ['DELETE', `/api/v1/items/${item.itemId}`],
      ['GET', '/api/v1/seller/items'],
      ['GET', '/api/v1/search?q=rate+limiter'],
    ] as const) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://agent.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'content-type,payment-signature',
        },
      });
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBe('*');
      const allowed = String(res.headers['access-control-allow-methods']).split(/,\s*/);
      expect(allowed, url).toContain(method);
      const headers = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
      expect(headers, url).toEqual(expect.arrayContaining(['content-type', 'payment-signature']));
      expect(res.body, url).toBe('');
    }
  });
});

describe('identity routes probed bodiless', () => {
  it('a Content-Type: application/json header without a body is no body, not a 400', async () => {
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const url = `/api/v1/items/${itemId}`;
    const json = { 'content-type': 'application/json' };
    const probe = await t.app.inject({ method: 'DELETE', url, headers: json });
    expect(probe.statusCode).toBe(402);
    const prompt = promptOf(probe);
    expect(probe.json()).toEqual(prompt);
    const { header } = await signPayment(seller, prompt, prompt.accepts[0]!);
    const done = await t.app.inject({ method: 'DELETE', url, headers: { ...json, 'payment-signature': header } });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ ok: true });
  });
});
