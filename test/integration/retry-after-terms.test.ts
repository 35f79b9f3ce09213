import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { callAs } from '../helpers/accounts.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Review s27: the identical signed purchase, re-sent within its window after the seller changed
 * terms (left the chain it was paid on), must answer the same order: the docs promise "re-sending
 * the identical signed request within its validity window is always safe: it returns the same
 * order". It answers 409 authorization_already_used "nothing was stored or charged. Sign a fresh
 * authorization", which is false (the buyer WAS charged) and invites a second charge.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'rv-terms-')) });
});
afterAll(async () => t?.close());

describe('a paid retry after the seller changed terms', () => {
  it('answers the same order, never "nothing was charged"', async () => {
    const sellerWallet = newWallet();
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: sellerWallet.address.toLowerCase(),
      priceUsdc: 1,
    });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const base = prompt.accepts.find((a) => a.network === 'eip155:8453')!;
    const buyer = newWallet();
    const signed = await signPayment(buyer, prompt, base);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    const orderId = first.json().order_id;
    // (the answer was lost on the way: the buyer will retry the identical request)

    // the seller leaves base meanwhile
    const put = await callAs(t, sellerWallet, 'PUT', '/api/v1/agent/sales-chains', {
      sales_chains: ['polygon'],
    });
    expect(put.statusCode).toBe(200);

    const retry = await send();
    const body = retry.json();
    // what the buyer is told: the truth about the order they paid for
    expect(body.error, JSON.stringify(body)).not.toBe('authorization_already_used');
    expect(retry.statusCode).toBe(200);
    expect(body.order_id).toBe(orderId);
  });

  it('after the seller deleted the listing, the identical retry still answers the order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const signed = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    await t.runtime.deps.sql`update items set status = 'deleted', deleted_at = now() where id = ${item.itemId}`;
    t.runtime.deps.saleItems?.invalidate(item.itemId);
    const retry = await send();
    expect(retry.statusCode, JSON.stringify(retry.json())).toBe(200);
    expect(retry.json().order_id).toBe(first.json().order_id);
  });
});
