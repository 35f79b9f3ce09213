import { randomUUID } from 'node:crypto';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reconcileNow } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import {
  METADATA,
  startSellingApp,
  uploadRequest,
  type SellingContext,
} from '../helpers/selling.js';
import {
  chainObserverCopy,
  clientFor,
  expectOrderNamedWithoutLink,
  newWallet,
  promptOf,
  signPayment,
} from '../helpers/wallets.js';

/**
 * One signed authorization pays for one request. A replay of it is answered from the stored
 * result only when it is the same operation on the same content, within the authorization's
 * validity window; any other request carrying it gets 409 `authorization_already_used` and
 * nothing is stored; after the window a replay mints nothing (402, with the order id). A
 * purchase's replay gets links only with its first request's payment identifier, or as the first
 * answer of a payment completed out of band: everything else in it the chain made public.
 */
let t: SellingContext;
let local: LocalFacilitator;
beforeAll(async () => {
  t = await startSellingApp({
    MAX_ACTIVE_LISTINGS: '1000',
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
    // every refused replay here comes from one address and counts as a failed credential; the
    // bucket that then answers 429 is rate-limits.test.ts's subject, the answers are this file's
    RATE_LIMIT_FAILURE_MAX: '1000',
  });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;
const used = {
  error: 'authorization_already_used',
  message: expect.stringMatching(/already used for another request/),
};

async function itemsOf(address: string): Promise<number> {
  const [row] = await deps().sql<{ n: number }[]>`
    select count(*)::int as n from items i join agents a on a.id = i.seller_id
    where a.address = ${address.toLowerCase()}`;
  return row!.n;
}

describe('one listing-fee signature, many archives', () => {
  const post = (payload: Buffer | string, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/items', payload, headers });

  it('lists the first archive; 100 other archives with the same signature get 409 and store nothing', async () => {
    const seller = newWallet();
    const first = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const prompt = promptOf(await post(first.payload, first.headers));
    const { header } = await signPayment(seller, prompt, prompt.accepts[0]!);
    const paid = await post(first.payload, { ...first.headers, 'payment-signature': header });
    expect(paid.statusCode).toBe(202);
    const itemId = (paid.json() as { item_id: string }).item_id;
    const blobs = await t.blobFiles();
    const balance = await local.balanceOf('eip155:8453', seller.address);

    // 100 different archives under the one fee signature, 10 at a time
    const answers: Array<{ statusCode: number; body: unknown }> = [];
    for (let batch = 0; batch < 10; batch++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async () => {
            const other = uploadRequest({ bytes: zipOf(uniqueProject()) });
            const res = await post(other.payload, {
              ...other.headers,
              'payment-signature': header,
            });
            return { statusCode: res.statusCode, body: res.json() };
          }),
        )),
      );
    }
    expect(answers).toHaveLength(100);
    for (const a of answers) {
      expect(a.statusCode).toBe(409);
      expect(a.body).toEqual(used);
    }
    expect(await itemsOf(seller.address)).toBe(1);
    expect(await t.blobFiles()).toEqual(blobs);
    expect(await local.balanceOf('eip155:8453', seller.address)).toBe(balance);

    // the very same request again is a retry: the same item, nothing new stored
    const retry = await post(first.payload, { ...first.headers, 'payment-signature': header });
    expect(retry.statusCode).toBe(202);
    expect((retry.json() as { item_id: string }).item_id).toBe(itemId);
    expect(await t.blobFiles()).toEqual(blobs);
  });

  it('the same archive with other metadata or another file name is another request: 409', async () => {
    const seller = newWallet();
    const bytes = zipOf(uniqueProject());
    const first = uploadRequest({ bytes });
    const prompt = promptOf(await post(first.payload, first.headers));
    const { header } = await signPayment(seller, prompt, prompt.accepts[0]!);
    const paid = await post(first.payload, { ...first.headers, 'payment-signature': header });
    expect(paid.statusCode).toBe(202);
    const variants = [
      uploadRequest({ bytes, metadata: { ...METADATA, title: 'Another title' } }),
      uploadRequest({ bytes, metadata: { ...METADATA, prices: { USDC: 6 } } }),
      uploadRequest({ bytes, fileName: 'renamed.zip' }),
    ];
    for (const v of variants) {
      const res = await post(v.payload, { ...v.headers, 'payment-signature': header });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual(used);
    }
    const [row] = await deps().sql<{ title: string; price_micro: number; file_name: string }[]>`
      select title, price_micro, file_name from items where id = ${(paid.json() as { item_id: string }).item_id}`;
    expect(row).toEqual({ title: METADATA.title, priceMicro: 5_000_000, fileName: 'project.zip' });
  });
});

describe('purchases and identity proofs', () => {
  const completion = { policy_accepted: true, license_accepted: true };
  const acquireUrl = (id: string) => `/api/v1/items/${id}/acquire`;
  const complete = (itemId: string, header: string, body: object = completion) =>
    t.app.inject({
      method: 'POST',
      url: acquireUrl(itemId),
      headers: { 'payment-signature': header },
      payload: body,
    });

  /**
   * A purchase whose settlement answered pending, then completed by the reconciler: money moved,
   * the order exists, and no request has been answered with its links yet.
   */
  async function completedOutOfBand(paymentId?: string) {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    const signed = await signPayment(newWallet(), prompt, prompt.accepts[0]!, {
      ...(paymentId && { paymentId }),
    });
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const pending = await complete(item.itemId, signed.header);
    expect(pending.statusCode).toBe(409);
    const { order_id: orderId, transaction } = pending.json() as {
      order_id: string;
      transaction: string;
    };
    await local.resolvePending(transaction, 'confirmed');
    expect((await reconcileNow(deps(), 0)).completed).toBe(1);
    return { item, signed, orderId };
  }

  it('a purchase replayed for another chain gets 409; the same request again the same order', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const prompt = promptOf(
      await t.app.inject({
        method: 'POST',
        url: acquireUrl(item.itemId),
        payload: { chain: 'base' },
      }),
    );
    const base = prompt.accepts.find((a) => a.network === 'eip155:8453')!;
    const { header, payload } = await signPayment(buyer, prompt, base, {
      paymentId: `pay_${randomUUID()}`,
    });
    const body = { ...completion, chain: 'base' };
    const paid = await complete(item.itemId, header, body);
    expect(paid.statusCode).toBe(200);
    const orderId = (paid.json() as { order_id: string }).order_id;
    const balance = await local.balanceOf('eip155:8453', buyer.address);

    // the authorization as the chain shows it (no payment identifier), for another request
    const otherChain = await complete(item.itemId, chainObserverCopy(payload), {
      ...completion,
      chain: 'polygon',
    });
    expect(otherChain.statusCode).toBe(409);
    expect(otherChain.json()).toEqual(used);

    const again = await complete(item.itemId, header, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ order_id: orderId, download_url: expect.any(String) });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(balance);
    const [orders] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item.itemId}`;
    expect(orders!.n).toBe(1);
  });

  it('an identity proof replayed on another route gets 409; on its own route 402 as before', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    const { header: pay } = await signPayment(buyer, prompt, prompt.accepts[0]!);
    const bought = await complete(item.itemId, pay);
    expect(bought.statusCode).toBe(200);
    const orderId = (bought.json() as { order_id: string }).order_id;

    const orderUrl = `/api/v1/orders/${orderId}`;
    const idPrompt = promptOf(await t.app.inject(orderUrl));
    const { header } = await signPayment(buyer, idPrompt, idPrompt.accepts[0]!);
    const links = await t.app.inject({ url: orderUrl, headers: { 'payment-signature': header } });
    expect(links.statusCode).toBe(200);

    for (const url of ['/api/v1/agent/username', '/api/v1/seller/items', '/api/v1/inbox']) {
      const res = await t.app.inject({ url, headers: { 'payment-signature': header } });
      expect(res.statusCode, url).toBe(409);
      expect(res.json()).toEqual(used);
    }
    // the payment header on an identity route, and the identity proof as a payment
    const asIdentity = await t.app.inject({ url: orderUrl, headers: { 'payment-signature': pay } });
    expect(asIdentity.statusCode).toBe(409);
    const asPayment = await complete(item.itemId, header);
    expect(asPayment.statusCode).toBe(409);

    const same = await t.app.inject({ url: orderUrl, headers: { 'payment-signature': header } });
    expect(same.statusCode).toBe(402);
    expect(same.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'invalid_exact_evm_nonce_already_used',
    });
  });

  it('past its validity window a used payment mints no link: 402 with the order id; links come from the order', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    const signed = await signPayment(buyer, prompt, prompt.accepts[0]!);
    const paid = await complete(item.itemId, signed.header);
    expect(paid.statusCode).toBe(200);
    const orderId = (paid.json() as { order_id: string }).order_id;
    const validBefore = Number(
      (signed.payload.payload as { authorization: { validBefore: string } }).authorization
        .validBefore,
    );
    try {
      // a day after the window closed (only the clock moves; the database keeps its own)
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime((validBefore + 86_400) * 1000);
      const late = await complete(item.itemId, signed.header);
      expect(late.statusCode).toBe(402);
      expect(late.json()).toEqual({
        error: 'payment_verification_failed',
        message: expect.stringMatching(/GET \/api\/v1\/orders/),
        reason: 'invalid_exact_evm_nonce_already_used',
        order_id: orderId,
      });
      expect(late.body).not.toMatch(/download|sig=/);
      // the owner's identity proof still gets fresh links
      const orderUrl = `/api/v1/orders/${orderId}`;
      const idPrompt = promptOf(await t.app.inject(orderUrl));
      const { header } = await signPayment(buyer, idPrompt, idPrompt.accepts[0]!);
      const links = await t.app.inject({ url: orderUrl, headers: { 'payment-signature': header } });
      expect(links.statusCode).toBe(200);
      expect(links.json()).toMatchObject({ download_url: expect.stringContaining(orderId) });
    } finally {
      vi.useRealTimers();
    }
    const [orders] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item.itemId}`;
    expect(orders!.n).toBe(1);
  });

  it("within its window the buyer's retry gets the order's links; the chain's copy of it names the order and mints none", async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    const signed = await signPayment(buyer, prompt, prompt.accepts[0]!, {
      paymentId: `pay_${randomUUID()}`,
    });
    const paid = await complete(item.itemId, signed.header);
    expect(paid.statusCode).toBe(200);
    const orderId = (paid.json() as { order_id: string }).order_id;
    const balance = await local.balanceOf('eip155:8453', buyer.address);

    // the buyer's own retry (a lost answer) carries its payment identifier: the same order, links
    const retry = await complete(item.itemId, signed.header);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ order_id: orderId, download_url: expect.any(String) });

    // an observer of the chain has the authorization, its signature and the public prompt
    const copy = await complete(item.itemId, chainObserverCopy(signed.payload));
    expect(copy.statusCode).toBe(402);
    expect(copy.json()).toEqual({
      error: 'payment_verification_failed',
      reason: 'invalid_exact_evm_nonce_already_used',
      message: expect.stringMatching(/already answered.*GET \/api\/v1\/orders/),
      order_id: orderId,
    });
    expect(copy.body).not.toMatch(/download|sig=/);
    // nothing charged again, one order
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(balance);
    const [orders] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item.itemId}`;
    expect(orders!.n).toBe(1);
  });

  it('our client puts a fresh payment identifier in each payment it signs: its re-send of a purchase whose answer was lost gets the links', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const client = clientFor(t.app, buyer);
    let kept: PaymentPayload | undefined;
    const { order } = await client.acquire(item.itemId, {
      signed: ({ payload }) => void (kept = payload),
    });
    const id = (kept!.extensions?.['payment-identifier'] as { info?: { id?: string } }).info?.id;
    expect(id).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    // (the answer never arrived) the same signed payment again, as the MCP server re-sends it
    const again = await client.acquire(item.itemId, {
      resend: encodePaymentSignatureHeader(kept!),
    });
    expect(again.order.order_id).toBe(order.order_id);
    expect(again.order.download_url).toEqual(expect.stringContaining(order.order_id));
    // another purchase signs another id; an identity proof (zero value) carries none
    let next: PaymentPayload | undefined;
    await client.acquire((await createSaleItem(deps(), { priceUsdc: 0.5 })).itemId, {
      signed: ({ payload }) => void (next = payload),
    });
    expect(
      (next!.extensions?.['payment-identifier'] as { info?: { id?: string } }).info?.id,
    ).not.toBe(id);
    const [ids] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from x402_payment_identifiers where payer = ${buyer.address.toLowerCase()}`;
    await client.getOrder(order.order_id);
    const [after] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from x402_payment_identifiers where payer = ${buyer.address.toLowerCase()}`;
    expect([ids!.n, after!.n]).toEqual([2, 2]);
  });

  it('completed out of band (its settlement was pending): the first replay gets the links, a later one names the order', async () => {
    const { item, signed, orderId } = await completedOutOfBand();
    const first = await complete(item.itemId, signed.header);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ order_id: orderId, download_url: expect.any(String) });
    expectOrderNamedWithoutLink(
      await complete(item.itemId, chainObserverCopy(signed.payload)),
      orderId,
    );
  });

  it.each(['the chain copy first', "the buyer's retry first"])(
    'completed out of band, signed with a payment identifier (%s): only the copy carrying the id gets the links',
    async (first) => {
      const { item, signed, orderId } = await completedOutOfBand(`pay_${randomUUID()}`);
      // the buyer can always be answered with its id: a copy without it is never the buyer's,
      // before the buyer's retry (it would take the first answer) as after it
      const observer = () => complete(item.itemId, chainObserverCopy(signed.payload));
      const copies = [];
      if (first === 'the chain copy first') copies.push(await observer());
      const retry = await complete(item.itemId, signed.header);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json()).toMatchObject({ order_id: orderId, download_url: expect.any(String) });
      copies.push(await observer());
      for (const copy of copies) expectOrderNamedWithoutLink(copy, orderId);
    },
  );
});
