import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGzOf, uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { listItem, METADATA, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Cross-cutting compatibility with the clients that already use this contract (each case below is
 * what such a client sends): what they send must work unchanged.
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
      const headers = String(res.headers['access-control-allow-headers'])
        .toLowerCase()
        .split(/,\s*/);
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
    const done = await t.app.inject({
      method: 'DELETE',
      url,
      headers: { ...json, 'payment-signature': header },
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ ok: true });
  });
});

describe('the Python x402 SDK buying script', () => {
  it('reads the padded base64 header, merges the completion example, signs the first entry, HEADs the link', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2.35 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = await t.app.inject({ method: 'POST', url, payload: {} });
    expect(prompt.statusCode).toBe(402);
    const raw = String(prompt.headers['payment-required']);
    expect(raw).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(raw.length % 4).toBe(0);
    const required = promptOf(prompt);
    expect(prompt.json()).toEqual(required);
    const example = (
      required.extensions as {
        bazaar: { info: { input: { completion_request: { example: Record<string, unknown> } } } };
      }
    ).bazaar.info.input.completion_request.example;
    const first = required.accepts[0]!;
    // with no hint, the chain the example names is the entry the SDK signs
    expect(first.network).toBe(example.chain === 'base' ? 'eip155:8453' : 'eip155:137');
    expect(first.amount).toBe('2350000');
    const now = Math.floor(Date.now() / 1000);
    const { header } = await signPayment(newWallet(), required, first, {
      authorization: { validAfter: String(now - 600) },
    });
    const paid = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { ...example, policy_accepted: true, license_accepted: true },
    });
    expect(paid.statusCode).toBe(200);
    expect(Object.keys(paid.json()).sort()).toEqual([
      'download_url',
      'expires_in',
      'invoice_url',
      'order_id',
    ]);
    const link = new URL(paid.json().download_url);
    const head = await t.app.inject({ method: 'HEAD', url: link.pathname + link.search });
    expect(head.statusCode).toBe(200);
  });
});

describe('upload encodings the recipes use', () => {
  it('JSON with compression tgz and multipart with a .tgz file name both get the exact fee prompt', async () => {
    const bytes = await tarGzOf(uniqueProject());
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: { compression: 'tgz', file: bytes.toString('base64'), metadata: METADATA },
    });
    const boundary = 'recipe-boundary';
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="artifact.tgz"\r\nContent-Type: application/gzip\r\n\r\n`,
        ),
        bytes,
        Buffer.from(
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(METADATA)}\n\r\n--${boundary}--\r\n`,
        ),
      ]),
    });
    for (const res of [json, multipart]) {
      expect(res.statusCode, res.body).toBe(402);
      const prompt = promptOf(res);
      expect(res.json()).toEqual(prompt);
      expect(prompt.accepts.map((a) => a.amount)).toEqual(['10000', '10000']);
    }
  });
});
