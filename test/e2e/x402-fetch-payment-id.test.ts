import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
} from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { moneyOf, nonceTouched } from '../helpers/payment-id.js';
import { registerAgent } from '../helpers/revision-a.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The retry, with the official client unmodified over a real socket: @x402/fetch with the
 * payment-identifier extension's client helper (an id appended in a before-creation hook, as the
 * extension documents it). The answer to the paid request is lost after the service completed the
 * purchase; the retry signs afresh with the same id and gets the original order, and the buyer's
 * balance moved once. Every signature the client made is captured: only the first one is settled.
 */
const START = 10_000_000;

describe.each(['B', 'A'] as const)('Revision %s', (revision) => {
  let t: ListeningTestContext;
  let local: LocalFacilitator;
  beforeAll(async () => {
    t = await startListeningTestApp({
      CONTRACT_REVISION: revision,
      LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
    });
    local = t.runtime.deps.facilitator as LocalFacilitator;
  });
  afterAll(() => t?.close());

  const saleItem = async () => {
    const seller = revision === 'A' ? (await registerAgent(t.app)).wallet.address : undefined;
    return createSaleItem(t.runtime.deps, {
      priceUsdc: 0.75,
      ...(seller && { sellerAddress: seller }),
    });
  };
  const init = () => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      policy_accepted: true,
      license_accepted: true,
      ...(revision === 'A' && { chain: 'base' }),
    }),
  });

  /** An agent's x402 client that sends `paymentId` with every payment, and what it signed. */
  function agent(paymentId: string) {
    const account = newWallet();
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      paymentRequired.extensions ??= {};
      appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
    });
    const nonces: string[] = [];
    client.onAfterPaymentCreation(async ({ paymentPayload }) => {
      const proof = paymentPayload.payload as { authorization: { nonce: string } };
      nonces.push(proof.authorization.nonce);
      expect(paymentPayload.extensions?.['payment-identifier']).toMatchObject({
        info: { id: paymentId },
      });
    });
    return { client, address: account.address.toLowerCase(), nonces };
  }

  /** `fetch` whose first paid answer is lost: the service completed it, the client never hears. */
  function losingFirstPaidAnswer(lost: 'throw' | '502') {
    let losses = 0;
    return async (input: Request | string | URL, init?: RequestInit) => {
      const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
      const paid = headers.has('payment-signature');
      const res = await fetch(input, init);
      if (!paid || losses > 0) return res;
      losses++;
      await res.arrayBuffer(); // the whole answer arrived at the gateway, and went no further
      if (lost === 'throw') throw new TypeError('fetch failed: socket hang up');
      return new Response('bad gateway', { status: 502 });
    };
  }

  it('the answer is lost; the retry signs afresh with the same id and gets the original order', async () => {
    const item = await saleItem();
    const a = agent(generatePaymentId());
    const pay = wrapFetchWithPayment(losingFirstPaidAnswer('throw'), a.client);
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    await expect(pay(url, init())).rejects.toThrow(/socket hang up/);
    // the purchase was made: one order, paid
    expect(await moneyOf(t.runtime.deps.sql, a.address, item.itemId)).toEqual({
      transfers: 1,
      orders: 1,
    });

    const res = await pay(url, init());
    expect(res.status).toBe(200);
    const order = (await res.json()) as { order_id: string; download_url: string };
    const [placed] = await t.runtime.deps.sql<{ id: string }[]>`
      select id from orders where item_id = ${item.itemId}`;
    expect(order.order_id).toBe(placed!.id);
    expect((await fetch(order.download_url)).status).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
    expect(receipt).toMatchObject({ success: true, payer: a.address });

    expect(a.nonces).toHaveLength(2);
    expect(await local.balanceOf('eip155:8453', a.address)).toBe(START - 750_000);
    expect(await moneyOf(t.runtime.deps.sql, a.address, item.itemId)).toEqual({
      transfers: 1,
      orders: 1,
    });
    expect(await nonceTouched(t.runtime.deps.sql, a.address, a.nonces[1]!)).toBe(false);
  });

  it("@x402/fetch's own recovery (onPaymentResponse) re-signs with the same id and pays once", async () => {
    const item = await saleItem();
    const a = agent(generatePaymentId());
    // no receipt and no new prompt: the answer did not come back, so the client signs again
    a.client.onPaymentResponse(async (ctx) =>
      !ctx.settleResponse && !ctx.paymentRequired ? { recovered: true } : undefined,
    );
    const pay = wrapFetchWithPayment(losingFirstPaidAnswer('502'), a.client);
    const res = await pay(`${t.base}/api/v1/items/${item.itemId}/acquire`, init());
    expect(res.status).toBe(200);
    expect(a.nonces).toHaveLength(2);
    expect(await local.balanceOf('eip155:8453', a.address)).toBe(START - 750_000);
    expect(await moneyOf(t.runtime.deps.sql, a.address, item.itemId)).toEqual({
      transfers: 1,
      orders: 1,
    });
    expect(await nonceTouched(t.runtime.deps.sql, a.address, a.nonces[1]!)).toBe(false);
  });

  it('the same id for another item: 409 payment_identifier_conflict, nothing charged', async () => {
    const [first, second] = [await saleItem(), await saleItem()];
    const a = agent(generatePaymentId());
    const pay = wrapFetchWithPayment(fetch, a.client);
    expect((await pay(`${t.base}/api/v1/items/${first.itemId}/acquire`, init())).status).toBe(200);
    const res = await pay(`${t.base}/api/v1/items/${second.itemId}/acquire`, init());
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'payment_identifier_conflict' });
    expect(await local.balanceOf('eip155:8453', a.address)).toBe(START - 750_000);
  });
});
