import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { asWallet, METADATA, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/** Answers that were the generic invalid_request / not_found where the catalog has the specific code. */

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp();
});
afterAll(() => t.close());

describe('specific codes', () => {
  it('the disabled attach-address routes answer 404 feature_disabled whatever the body', async () => {
    for (const url of ['/api/v1/agent/wallets', '/api/v1/auth/link-wallet']) {
      for (const payload of ['null', '[]', '"x"', '{"address": 5}']) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.statusCode, `${url} ${payload}`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'feature_disabled' });
      }
    }
  });

  it("a seller's unknown or foreign item is 404 item_not_found (status and delete)", async () => {
    const seller = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: seller.address.toLowerCase() });
    const foreign = await createSaleItem(t.runtime.deps);
    for (const id of [randomUUID(), foreign.itemId]) {
      const status = await asWallet(t, seller, 'GET', `/api/v1/seller/items/${id}/status`);
      expect(status.statusCode).toBe(404);
      expect(status.json()).toMatchObject({ error: 'item_not_found' });
      const del = await asWallet(t, seller, 'DELETE', `/api/v1/items/${id}`);
      expect(del.statusCode).toBe(404);
      expect(del.json()).toMatchObject({ error: 'item_not_found' });
    }
  });

  it('the listing invoice of an unknown item is 404 item_not_found', async () => {
    const res = await t.app.inject(`/api/v1/listing-invoices/${randomUUID()}?exp=1&sig=x`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'item_not_found' });
  });

  it('a multipart archive in a part not named "file" is missing_file', async () => {
    const boundary = 'b0undary';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(METADATA)}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="p.zip"\r\n\r\n`,
      ),
      zipOf(uniqueProject()),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'missing_file' });
  });
});
