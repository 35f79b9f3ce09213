import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { callAs } from '../helpers/accounts.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { uploadRequest } from '../helpers/selling.js';
import {
  chainObserverCopy,
  expectOrderNamedWithoutLink,
  newWallet,
  promptOf,
  signPayment,
} from '../helpers/wallets.js';

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
    // the buyer's payment carries a payment identifier (as our client's do): its retry is known
    const signed = await signPayment(buyer, prompt, base, { paymentId: `pay_${randomUUID()}` });
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
    // the same authorization as the chain shows it: told the truth (the order), given no link
    const copy = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': chainObserverCopy(signed.payload) },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expectOrderNamedWithoutLink(copy, orderId);
  });

  it('after the seller deleted the listing, the identical retry still answers the order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const signed = await signPayment(newWallet(), prompt, prompt.accepts[0]!, {
      paymentId: `pay_${randomUUID()}`,
    });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    await t.runtime.deps
      .sql`update items set status = 'deleted', deleted_at = now() where id = ${item.itemId}`;
    t.runtime.deps.saleItems?.invalidate(item.itemId);
    const retry = await send();
    expect(retry.statusCode, JSON.stringify(retry.json())).toBe(200);
    expect(retry.json().order_id).toBe(first.json().order_id);
  });

  it('a pending purchase retried after the listing was deleted answers pending with its order_id', async () => {
    const local = t.runtime.deps.facilitator as LocalFacilitator;
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
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const first = await send();
    expect(first.statusCode).toBe(409);
    expect(first.json().error).toBe('payment_settlement_pending');
    await t.runtime.deps
      .sql`update items set status = 'deleted', deleted_at = now() where id = ${item.itemId}`;
    t.runtime.deps.saleItems?.invalidate(item.itemId);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(409);
    expect(retry.json()).toMatchObject({
      error: 'payment_settlement_pending',
      order_id: first.json().order_id,
      transaction: first.json().transaction,
    });
  });

  it('after a price change, the identical retry answers the order; on another listing it is 409', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const other = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = newWallet();
    const signed = await signPayment(buyer, prompt, prompt.accepts[0]!, {
      paymentId: `pay_${randomUUID()}`,
    });
    const send = (to: string) =>
      t.app.inject({
        method: 'POST',
        url: to,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const first = await send(url);
    expect(first.statusCode).toBe(200);
    await t.runtime.deps
      .sql`update items set price_micro = 2000000 where id in ${t.runtime.deps.sql([item.itemId, other.itemId])}`;
    t.runtime.deps.saleItems?.invalidate(item.itemId);
    t.runtime.deps.saleItems?.invalidate(other.itemId);
    const retry = await send(url);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().order_id).toBe(first.json().order_id);
    // the claim answers only the route it was made on: elsewhere it is another request
    const elsewhere = await send(`/api/v1/items/${other.itemId}/acquire`);
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json().error).toBe('authorization_already_used');
    // and so it is as the chain shows it (no payment identifier)
    const bare = await t.app.inject({
      method: 'POST',
      url: `/api/v1/items/${other.itemId}/acquire`,
      headers: { 'payment-signature': chainObserverCopy(signed.payload) },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(bare.statusCode).toBe(409);
    expect(bare.json().error).toBe('authorization_already_used');
    const [n] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from orders where lower(payer) = ${buyer.address.toLowerCase()}`;
    expect(n!.n).toBe(1);
  });

  it('the same nonce signed for another chain is not resumed from the claim: 409, no order, nothing settled', async () => {
    // review s28: `claimed()` takes the payload's own requirement; the claim it resumes must be
    // the one made on that chain (the request digest names network and asset)
    const sellerWallet = newWallet();
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: sellerWallet.address.toLowerCase(),
      priceUsdc: 1,
    });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const on = (network: string) => prompt.accepts.find((a) => a.network === network)!;
    const buyer = newWallet();
    const onBase = await signPayment(buyer, prompt, on('eip155:8453'));
    // the same nonce on Polygon: as offered, and (a crafted payload) to Base's recipient, so that
    // only the chain and the token differ from the claim
    const polygon = on('eip155:137');
    const onPolygon = [polygon, { ...polygon, payTo: on('eip155:8453').payTo }].map((r) =>
      signPayment(buyer, prompt, r, { authorization: { nonce: onBase.nonce } }),
    );
    const send = (header: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const settled = async () => {
      const [r] = await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from x402_payments
        where payer = ${buyer.address.toLowerCase()} and transaction is not null`;
      return r!.n;
    };
    const first = await send(onBase.header);
    expect(first.statusCode, first.body).toBe(200);
    expect(await settled()).toBe(1);
    for (const chains of [['base', 'polygon'], ['base']]) {
      // also once the seller left the chain signed for: taken from the payload's own requirement
      const put = await callAs(t, sellerWallet, 'PUT', '/api/v1/agent/sales-chains', {
        sales_chains: chains,
      });
      expect(put.statusCode).toBe(200);
      for (const signed of onPolygon) {
        const other = await send((await signed).header);
        expect(other.statusCode, other.body).toBe(409);
        expect(other.json()).toMatchObject({ error: 'authorization_already_used' });
        expect(other.json().order_id).toBeUndefined();
        expect(await settled()).toBe(1);
      }
    }
    const [n] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from orders where lower(payer) = ${buyer.address.toLowerCase()}`;
    expect(n!.n).toBe(1);
  });
});

describe('a paid listing fee retried after the fee terms changed', () => {
  for (const change of ['LISTING_FEE_USDC', 'PLATFORM_PAY_TO'] as const) {
    it(`(${change}) answers the same listing, never "nothing was charged"`, async () => {
      const deps = t.runtime.deps as typeof t.runtime.deps & { platformPayTo: Address };
      const { config } = deps;
      const saved = { fee: config.LISTING_FEE_USDC, payTo: deps.platformPayTo };
      const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
      const prompt = promptOf(await t.app.inject({ method: 'POST', url: '/api/v1/items', ...req }));
      const seller = newWallet();
      const signed = await signPayment(seller, prompt, prompt.accepts[0]!);
      const send = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/items',
          payload: req.payload,
          headers: { ...req.headers, 'payment-signature': signed.header },
        });
      const first = await send();
      expect(first.statusCode, first.body).toBe(202);
      try {
        if (change === 'LISTING_FEE_USDC') config.LISTING_FEE_USDC = saved.fee + 1;
        else deps.platformPayTo = newWallet().address;
        const retry = await send();
        expect(retry.json().error, retry.body).not.toBe('authorization_already_used');
        expect(retry.statusCode).toBe(202);
        expect(retry.json().item_id).toBe(first.json().item_id);
      } finally {
        config.LISTING_FEE_USDC = saved.fee;
        deps.platformPayTo = saved.payTo;
      }
      const [n] = await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from items i join agents a on a.id = i.seller_id
        where a.address = ${seller.address.toLowerCase()}`;
      expect(n!.n).toBe(1);
    });
  }
});
