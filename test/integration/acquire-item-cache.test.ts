import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaleItemCache } from '../../src/domain/orders/acquire.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * The acquire prompt data is cached briefly per item; the nonce claim re-checks the item in the
 * same statement, so a changed or deleted item is never charged even while the cache is warm.
 */
let t: TestContext;
let local: LocalFacilitator;
beforeAll(async () => {
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'pay-cache-')),
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
  });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;
const BASE = 'eip155:8453';
const completion = { policy_accepted: true, license_accepted: true };

async function warmPurchase(seller = newWallet()) {
  const item = await createSaleItem(deps(), { priceUsdc: 0.5, sellerAddress: seller.address });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url })); // warms the cache
  const buyer = newWallet();
  const signed = await signPayment(buyer, required, required.accepts[0]!);
  const send = () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: completion,
    });
  return { item, url, buyer, seller, signed, send };
}

async function nothingHappened(p: Awaited<ReturnType<typeof warmPurchase>>) {
  const sql = deps().sql;
  expect(
    (
      await sql<
        { n: number }[]
      >`select count(*)::int as n from orders where item_id = ${p.item.itemId}`
    )[0]!.n,
  ).toBe(0);
  expect(
    (
      await sql<
        { n: number }[]
      >`select count(*)::int as n from x402_nonces where nonce = ${p.signed.nonce}`
    )[0]!.n,
  ).toBe(0);
  expect(
    (
      await sql<
        { n: number }[]
      >`select count(*)::int as n from x402_payments where nonce = ${p.signed.nonce}`
    )[0]!.n,
  ).toBe(0);
  expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
  expect(
    await local.authorizationState({
      network: BASE,
      asset: p.signed.payload.accepted.asset,
      payer: p.buyer.address,
      nonce: p.signed.nonce,
    }),
  ).toEqual({ state: 'unused' });
}

describe('acquire with a warm item cache', () => {
  it('an item deleted elsewhere (no invalidation here) after the prompt is not charged: 404 item_not_found', async () => {
    const p = await warmPurchase();
    await deps()
      .sql`update items set status = 'deleted', status_reason = 'removed', deleted_at = now() where id = ${p.item.itemId}`;
    const res = await p.send();
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('item_not_found');
    await nothingHappened(p);
  });

  it('a price changed elsewhere after the prompt is not charged: the fresh answer (402, requirements not issued)', async () => {
    const p = await warmPurchase();
    await deps().sql`update items set price_micro = 700000 where id = ${p.item.itemId}`;
    const res = await p.send();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'requirements_not_issued',
    });
    await nothingHappened(p);
    // and the next prompt shows the new price at once (the failed re-check dropped the entry)
    const again = promptOf(await t.app.inject({ method: 'POST', url: p.url }));
    expect(again.accepts[0]!.amount).toBe('700000');
  });

  it('a seller who stops selling on the chain after the prompt is not charged: 409 seller_wallet_missing', async () => {
    const p = await warmPurchase();
    await deps()
      .sql`update agents set sales_chains = '{}' where address = ${p.seller.address.toLowerCase()}`;
    const res = await p.send();
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('seller_wallet_missing');
    await nothingHappened(p);
  });

  it("a seller's change of terms drops all of that seller's cached prompts at once", async () => {
    const seller = newWallet();
    const p = await warmPurchase(seller);
    const other = await createSaleItem(deps(), { priceUsdc: 0.5, sellerAddress: seller.address });
    const otherUrl = `/api/v1/items/${other.itemId}/acquire`;
    promptOf(await t.app.inject({ method: 'POST', url: otherUrl })); // warm the second entry
    await deps()
      .sql`update agents set sales_chains = '{polygon}' where address = ${seller.address.toLowerCase()}`;
    deps().saleItems.invalidateSeller(p.item.seller.id);
    for (const url of [p.url, otherUrl]) {
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      expect(prompt.accepts.map((a) => a.network)).toEqual(['eip155:137']);
    }
    // the detail route reads the same definition
    const detail = await t.app.inject({ method: 'GET', url: `/api/v1/items/${other.itemId}` });
    expect(detail.json().available_chains).toEqual(['polygon']);
  });

  it('deleting through this server drops the cached entry at once: the next prompt is 404', async () => {
    const p = await warmPurchase();
    const url = `/api/v1/items/${p.item.itemId}`;
    const prompt = promptOf(await t.app.inject({ method: 'DELETE', url }));
    const { header } = await signPayment(p.seller, prompt, prompt.accepts[0]!);
    expect(
      (await t.app.inject({ method: 'DELETE', url, headers: { 'payment-signature': header } }))
        .statusCode,
    ).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: p.url });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('item_not_found');
    expect((await p.send()).statusCode).toBe(404);
    await nothingHappened(p);
  });

  it('an unchanged item still sells from the cache, once per authorization', async () => {
    const p = await warmPurchase();
    const first = await p.send();
    expect(first.statusCode).toBe(200);
    expect((await p.send()).json().order_id).toBe(first.json().order_id);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });
});

describe('SaleItemCache', () => {
  it('expires entries after the TTL and keeps at most its bound', async () => {
    let now = 0;
    const cache = new SaleItemCache(30_000, 2, () => now);
    const a = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const b = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const c = await createSaleItem(deps(), { priceUsdc: 0.5 });
    expect((await cache.get(deps().sql, a.itemId)).cached).toBe(false);
    expect((await cache.get(deps().sql, a.itemId)).cached).toBe(true);
    now = 30_001;
    expect((await cache.get(deps().sql, a.itemId)).cached).toBe(false);
    await cache.get(deps().sql, b.itemId);
    await cache.get(deps().sql, c.itemId); // evicts the oldest (a)
    expect((await cache.get(deps().sql, c.itemId)).cached).toBe(true);
    expect((await cache.get(deps().sql, a.itemId)).cached).toBe(false);
    cache.invalidate(a.itemId);
    expect((await cache.get(deps().sql, a.itemId)).cached).toBe(false);
    await expect(
      cache.get(deps().sql, '00000000-0000-4000-8000-000000000000'),
    ).rejects.toMatchObject({ status: 404 });
  });
});
