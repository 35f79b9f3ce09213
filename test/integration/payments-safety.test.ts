import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { derivePayoutAddress } from '../../src/domain/accounts/accounts.js';
import { piece, Pieces } from '../../src/db/pieces.js';
import { CHAINS } from '../../src/wire/chains.js';
import { PaymentProcessor } from '../../src/domain/payments/processor.js';
import { reconcilePayments } from '../../src/domain/payments/reconciler.js';
import { reconcileNow } from '../../src/runtime.js';
import { AppError } from '../../src/errors.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import {
  chainObserverCopy,
  clientFor,
  expectOrderNamedWithoutLink,
  guardedPayment,
  newWallet,
  promptOf,
  signerOfProof,
  signPayment,
} from '../helpers/wallets.js';

/** Spec 7.1 outcomes and money safety: one settlement and one order per authorization nonce. */
let t: TestContext;
let local: LocalFacilitator;
beforeAll(async () => {
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'pay-')),
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
    RECONCILE_STALE_SECONDS: '1',
    // money safety under the deployment's default: the database on its own thread, concurrent
    // completions' statements batched to it by the wire driver
    EMBEDDED_DB_THREAD: 'true',
  });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());
afterEach(() => {
  local.clearFaults();
  t.runtime.deps.payments.testHooks = {};
});

const deps = () => t.runtime.deps;
const BASE = 'eip155:8453';
const completion = { policy_accepted: true, license_accepted: true };

/** A purchase signed, not sent; `paymentId`: it carries a payment-identifier id, as our client's do. */
async function signedPurchase(paymentId?: string) {
  const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, required, required.accepts[0]!, {
    ...(paymentId && { paymentId }),
  });
  const send = (header = signed.header) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: completion,
    });
  const fresh = async () => (await signPayment(buyer, required, required.accepts[0]!)).header;
  return { item, buyer, send, fresh, nonce: signed.nonce, signed: signed.payload };
}

const countOrders = async (itemId: string) =>
  (
    await deps().sql<
      { n: number }[]
    >`select count(*)::int as n from orders where item_id = ${itemId}`
  )[0]!.n;

/**
 * Ages a claim as if its request had died an hour ago (instead of sleeping past the staleness
 * threshold): the test database's clock for that row is moved, nothing else.
 */
const abandon = (nonce: string) =>
  deps()
    .sql`update x402_payments set updated_at = now() - interval '1 hour' where nonce = ${nonce}`;

describe('idempotency per authorization nonce', () => {
  it('two concurrent completions with one signature: one settlement, one order, same answer', async () => {
    const p = await signedPurchase(`pay_${randomUUID()}`);
    const [a, b] = await Promise.all([p.send(), p.send()]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().order_id).toBe(b.json().order_id);
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
    const n = (
      await deps().sql<
        { n: number }[]
      >`select count(*)::int as n from dev_ledger_transfers where nonce = ${p.nonce}`
    )[0]!.n;
    expect(n).toBe(1);
  });

  it('two concurrent copies without a payment identifier: one order, the links once, the copy names the order', async () => {
    // (the copy is what anyone who saw the transfer on the chain can send: it proves no buyer)
    const p = await signedPurchase();
    const answers = await Promise.all([p.send(), p.send()]);
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    const orderId = ok[0]!.json().order_id;
    expectOrderNamedWithoutLink(
      answers.find((r) => r.statusCode !== 200)!,
      orderId,
    );
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });

  it('a retry after success returns the same order and receipt without charging again', async () => {
    const p = await signedPurchase(`pay_${randomUUID()}`);
    const first = await p.send();
    const again = await p.send();
    expect(again.statusCode).toBe(200);
    expect(again.json().order_id).toBe(first.json().order_id);
    const tx = (r: typeof first) =>
      decodePaymentResponseHeader(String(r.headers['payment-response'])).transaction;
    expect(tx(again)).toBe(tx(first));
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });

  it('a process death between settlement and the order write is finished by the reconciler', async () => {
    const p = await signedPurchase();
    deps().payments.testHooks.afterSettle = () => {
      throw new Error('simulated crash after settlement');
    };
    expect((await p.send()).statusCode).toBe(500);
    deps().payments.testHooks = {};
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
    expect(await countOrders(p.item.itemId)).toBe(0);
    await abandon(p.nonce); // the claim's request is long gone
    const report = await reconcileNow(deps(), 1);
    expect(report.completed).toBeGreaterThanOrEqual(1);
    expect(await countOrders(p.item.itemId)).toBe(1);
    const retry = await p.send();
    expect(retry.statusCode).toBe(200);
    const [order] = await deps().sql<
      { id: string }[]
    >`select id from orders where item_id = ${p.item.itemId}`;
    expect(retry.json().order_id).toBe(order!.id);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });

  it('after a crash, retrying the same signed request recovers the order without the reconciler', async () => {
    const p = await signedPurchase();
    deps().payments.testHooks.afterSettle = () => {
      throw new Error('simulated crash after settlement');
    };
    expect((await p.send()).statusCode).toBe(500);
    deps().payments.testHooks = {};
    await abandon(p.nonce); // the claim's request is long gone
    const retry = await p.send();
    expect(retry.statusCode).toBe(200);
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });
});

describe("x402 v1's X-PAYMENT header", () => {
  /**
   * A v1 client sends its payment in X-PAYMENT. Before, the header was ignored and the request
   * prompted again (402 payment_required), which such a client signs the same way and sends again,
   * or reports as a bare refusal: it is named instead, the v2 prompt alongside, nothing read or
   * charged.
   */
  it('alone is refused as the wrong x402 version, with the prompt to sign; nothing charged', async () => {
    const p = await signedPurchase();
    const url = `/api/v1/items/${p.item.itemId}/acquire`;
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-payment': await p.fresh() },
      payload: completion,
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'invalid_x402_version',
    });
    expect(promptOf(res).accepts.length).toBeGreaterThan(0);
    expect(await countOrders(p.item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
    // beside PAYMENT-SIGNATURE it changes nothing: the v2 payment completes
    const ok = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': await p.fresh(), 'x-payment': 'e30=' },
      payload: completion,
    });
    expect(ok.statusCode).toBe(200);
    expect(await countOrders(p.item.itemId)).toBe(1);
  });

  it('on an identity route, likewise', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/seller/stats',
      headers: { 'x-payment': 'e30=' },
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ reason: 'invalid_x402_version' });
    expect(res.headers['payment-required']).toBeTruthy();
  });
});

describe('spec 7.1 outcomes from the local facilitator', () => {
  it('402 payment_verification_failed passes the facilitator verdict through; nothing charged', async () => {
    const p = await signedPurchase();
    local.injectFault({ op: 'verify', invalidReason: 'invalid_exact_evm_nonce_already_used' });
    const res = await p.send();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
  });

  it('503 settlement_capacity with retry_after; nothing charged, a fresh signature then succeeds', async () => {
    const p = await signedPurchase();
    local.injectFault({ op: 'settle', outcome: 'capacity' });
    const busy = await p.send();
    expect(busy.statusCode).toBe(503);
    expect(busy.json()).toEqual({
      error: 'settlement_capacity',
      message: expect.any(String),
      reason: 'settlement_capacity',
      retry_after: 5,
    });
    expect(busy.headers['retry-after']).toBe('5');
    local.injectFault({ op: 'settle', outcome: 'unreachable' });
    const down = await p.send(await p.fresh());
    expect(down.statusCode).toBe(503);
    expect(down.json().error).toBe('settlement_capacity');
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
    expect((await p.send(await p.fresh())).statusCode).toBe(200);
    expect(await countOrders(p.item.itemId)).toBe(1);
  });

  it('402 payment_settlement_failed is terminal for the authorization', async () => {
    const p = await signedPurchase();
    local.injectFault({ op: 'settle', outcome: 'failed' });
    const res = await p.send();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_settlement_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_transaction_failed',
    });
    const again = await p.send();
    expect(again.json()).toEqual(res.json());
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
    expect(await countOrders(p.item.itemId)).toBe(0);
  });

  it('409 payment_settlement_pending, then the reconciler completes the order the buyer can fetch', async () => {
    const p = await signedPurchase();
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const res = await p.send();
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body).toEqual({
      error: 'payment_settlement_pending',
      message: expect.any(String),
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: BASE,
      order_id: expect.any(String),
    });
    expect(body.retry_after).toBeUndefined();
    expect((await p.send()).statusCode).toBe(409);
    const client = clientFor(t.app, p.buyer);
    expect(await reconcileNow(deps(), 1)).toMatchObject({
      completed: 0,
      released: 0,
    });
    await local.resolvePending(body.transaction, 'confirmed');
    expect((await reconcileNow(deps(), 1)).completed).toBe(1);
    const links = await client.getOrder(body.order_id);
    expect(links.download_url).toContain(body.order_id);
    const retry = await p.send();
    expect(retry.statusCode).toBe(200);
    expect(retry.json().order_id).toBe(body.order_id);
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(9_500_000);
  });

  it('a pending settlement that fails on chain releases the nonce and creates no order', async () => {
    const p = await signedPurchase();
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const { transaction } = (await p.send()).json();
    await local.resolvePending(transaction, 'failed');
    expect((await reconcileNow(deps(), 1)).released).toBe(1);
    expect(await countOrders(p.item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(10_000_000);
    // the released authorization may be presented again and now settles
    expect((await p.send()).statusCode).toBe(200);
    expect(await countOrders(p.item.itemId)).toBe(1);
  });
});

describe('local facilitator ledger', () => {
  it('an overdraft at settlement aborts atomically: no transfer, no balance moves, nonce stays usable', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const required = promptOf(
      await t.app.inject({ method: 'POST', url: `/api/v1/items/${item.itemId}/acquire` }),
    );
    const requirement = required.accepts[0]!;
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, requirement);
    await local.setBalance(BASE, buyer.address, 100_000);
    const res = await local.settle(signed.payload, requirement);
    expect(res).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
      transaction: '',
    });
    expect(await local.balanceOf(BASE, buyer.address)).toBe(100_000);
    // the payee is a payout address: it starts empty on the ledger (migration 479), still 0
    expect(await local.balanceOf(BASE, requirement.payTo)).toBe(0);
    expect(
      await local.authorizationState({
        network: BASE,
        asset: requirement.asset,
        payer: buyer.address,
        nonce: signed.nonce,
      }),
    ).toEqual({ state: 'unused' });
    await local.setBalance(BASE, buyer.address, 600_000);
    expect((await local.settle(signed.payload, requirement)).success).toBe(true);
    expect(await local.balanceOf(BASE, buyer.address)).toBe(100_000);
    expect((await local.settle(signed.payload, requirement)).errorReason).toBe(
      'invalid_exact_evm_nonce_already_used',
    );
  });
});

describe('completion in one statement after settlement', () => {
  it('a first purchase writes payment outcome, buyer, payout addresses, order and audit row together', async () => {
    const p = await signedPurchase();
    const res = await p.send();
    expect(res.statusCode).toBe(200);
    const orderId = res.json().order_id as string;
    const receipt = decodePaymentResponseHeader(String(res.headers['payment-response']));
    const [pay] = await deps().sql<
      {
        status: string;
        transaction: string;
        result: { orderId: string };
        settlement: { transaction: string };
      }[]
    >`
      select status, transaction, result, settlement from x402_payments where nonce = ${p.nonce}`;
    expect(pay).toMatchObject({
      status: 'completed',
      transaction: receipt.transaction,
      result: { orderId },
      settlement: { transaction: receipt.transaction },
    });
    const [nonce] = await deps().sql<
      { kind: string }[]
    >`select kind from x402_nonces where nonce = ${p.nonce}`;
    expect(nonce!.kind).toBe('paid');
    const [order] = await deps().sql<{ buyerId: string; transaction: string }[]>`
      select o.buyer_id, o.transaction from orders o join legal_acceptances l on l.order_id = o.id where o.id = ${orderId}`;
    expect(order!.transaction).toBe(receipt.transaction);
    const payouts = await deps().sql<{ chain: string; address: string }[]>`
      select chain, address from payout_addresses where agent_id = ${order!.buyerId} order by chain`;
    const salt = t.config.PAYOUT_FACTORY_SALT;
    expect(payouts).toEqual(
      [...CHAINS]
        .sort()
        .map((chain) => ({ chain, address: derivePayoutAddress(p.buyer.address, chain, salt) })),
    );
  });

  it('a payment keeps what the payer signed as its proof, on the one-statement and the stepwise path', async () => {
    const proofOf = async (nonce: string) =>
      (
        await deps().sql<
          { payload: { signature: string; authorization: Record<string, string> } }[]
        >`
          select payload from x402_payments where nonce = ${nonce}`
      )[0]!.payload;
    const fused = await signedPurchase();
    expect((await fused.send()).statusCode).toBe(200);
    // a settlement left pending takes the stepwise path (claim, settle, complete later)
    const stepwise = await signedPurchase();
    local.injectFault({ op: 'settle', outcome: 'pending' });
    expect((await stepwise.send()).statusCode).toBe(409);
    for (const p of [fused, stepwise]) {
      const proof = await proofOf(p.nonce);
      // exactly the authorization and signature the buyer sent, nothing else
      expect(proof).toEqual(p.signed.payload);
      // and it still proves who paid: it recovers to the payer with the token's EIP-712 domain
      const network = t.runtime.deps.networks.base;
      const signer = signerOfProof(
        {
          name: network.eip712.name,
          version: network.eip712.version,
          chainId: network.chainId,
          verifyingContract: network.asset,
        },
        proof,
      );
      expect(signer).toBe(p.buyer.address.toLowerCase());
    }
  });

  it("a repeat buyer's purchase finds its account; one whose wallet names no account any more still completes once", async () => {
    const p = await signedPurchase();
    const buyerOf = async (res: { json(): unknown }) => {
      const orderId = (res.json() as { order_id: string }).order_id;
      const [row] = await deps().sql<{ buyerId: string; payer: string }[]>`
        select o.buyer_id, l.payer from orders o join legal_acceptances l on l.order_id = o.id
        where o.id = ${orderId}`;
      return row!;
    };
    const first = await p.send();
    expect(first.statusCode).toBe(200);
    const account = (await buyerOf(first)).buyerId;
    const again = await p.send(await p.fresh());
    expect(again.statusCode).toBe(200);
    expect(await buyerOf(again)).toEqual({
      buyerId: account,
      payer: p.buyer.address.toLowerCase(),
    });
    // the wallet's binding disappears behind the server's back: the purchase that remembered the
    // buyer cannot find it, and must neither lose the order nor charge twice
    await deps().sql`delete from wallet_bindings where address = ${p.buyer.address.toLowerCase()}`;
    const header = await p.fresh();
    const third = await p.send(header);
    expect(third.statusCode).toBe(200);
    expect((await buyerOf(third)).buyerId).toBe(account);
    const nonce = decodePaymentSignatureHeader(header).payload.authorization as { nonce: string };
    const [counts] = await deps().sql<{ transfers: number; payments: string[] }[]>`
      select (select count(*)::int from dev_ledger_transfers where nonce = ${nonce.nonce}) as transfers,
             (select array_agg(status) from x402_payments where nonce = ${nonce.nonce}) as payments`;
    expect(counts).toEqual({ transfers: 1, payments: ['completed'] });
    expect(await countOrders(p.item.itemId)).toBe(3);
  });

  it('with the local ledger, claim, transfer, order, audit row and outcome commit as one transaction', async () => {
    const p = await signedPurchase();
    expect((await p.send()).statusCode).toBe(200);
    // now() is the transaction's start: one value across every row means one atomic commit, so a
    // crash leaves all of them or none
    const [row] = await deps().sql<{ stamps: number; status: string }[]>`
      select count(distinct stamp)::int as stamps, min(status) as status from (
        select created_at as stamp, status from x402_payments where nonce = ${p.nonce}
        union all select created_at, null from x402_nonces where nonce = ${p.nonce}
        union all select created_at, null from dev_ledger_transfers where nonce = ${p.nonce}
        union all select o.created_at, null from orders o
          join legal_acceptances l on l.order_id = o.id where o.item_id = ${p.item.itemId}
      ) as rows`;
    expect(row).toEqual({ stamps: 1, status: 'completed' });
    expect(await countOrders(p.item.itemId)).toBe(1);
  });

  it('when the completing statement fails, the settlement is kept and the operation completes exactly once later', async () => {
    const processor = new PaymentProcessor(deps().payments.store, local, {
      retryAfterSeconds: 5,
      staleSeconds: 0,
      chainClockGraceSeconds: 120,
      logger: deps().logger,
    });
    const sql = deps().sql;
    let broken = true;
    // An operation whose fulfilment writes one row per completion: the count shows how often it ran.
    await sql`create table if not exists probe_runs (payment_id uuid primary key)`;
    processor.define('probe', (q, ctx) => ({
      pieces: Pieces.given('paid').then(
        broken
          ? piece(
              'broken',
              ['paid'],
              q`broken as (insert into x402_nonces (payer) select null from paid)`,
            )
          : piece(
              'ran',
              ['paid'],
              q`ran as (insert into probe_runs (payment_id) select ${ctx.paymentId}::uuid from paid)`,
            ),
      ),
      result: q`jsonb_build_object('payment', ${ctx.paymentId}::text)`,
    }));
    const payTo = newWallet().address;
    const offer = {
      description: 'probe',
      options: [{ chain: 'base' as const, payTo, amount: 10_000 }],
    };
    const { payment, nonce } = await guardedPayment(deps().x402, '/probe', offer);

    // Money moves, the completion fails twice: the request fails, the settlement is on record.
    await expect(processor.run({ operation: 'probe', payment, context: {} })).rejects.toThrow();
    const [held] = await sql<{ status: string; transaction: string }[]>`
      select status, transaction from x402_payments where nonce = ${nonce}`;
    expect(held!.status).toBe('settled');
    expect(held!.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const [moved] = await sql<{ n: number }[]>`
      select count(*)::int as n from dev_ledger_transfers where nonce = ${nonce}`;
    expect(moved!.n).toBe(1); // the aborted one-statement attempt moved nothing

    // Fixed; the reconciler completes it once, and the buyer's retry answers the same result.
    broken = false;
    const report = await reconcilePayments(processor, {
      staleSeconds: 0,
      alertAfterSeconds: 600,
      logger: deps().logger,
      paymentIdRetentionSeconds: 86_400,
    });
    expect(report.completed).toBe(1);
    const again = await processor.run({ operation: 'probe', payment, context: {} });
    expect(again).toMatchObject({ replayed: true, result: { payment: again.paymentId } });
    expect(again.settlement.transaction).toBe(held!.transaction);
    const [runs] = await sql<{ n: number }[]>`
      select count(*)::int as n from probe_runs where payment_id = ${again.paymentId}`;
    expect(runs!.n).toBe(1);
    expect(
      await local.authorizationState({
        network: BASE,
        asset: payment.requirement.asset,
        payer: payment.payer,
        nonce,
      }),
    ).toEqual({ state: 'settled', transaction: held!.transaction });
  });

  it("a settlement kept on record, signed with a payment identifier: the chain's copy completes it and gets no result, the buyer's retry does", async () => {
    const processor = new PaymentProcessor(deps().payments.store, local, {
      retryAfterSeconds: 5,
      staleSeconds: 0,
      chainClockGraceSeconds: 120,
      logger: deps().logger,
    });
    let broken = true;
    processor.define('probe-links', (q, ctx) => ({
      pieces: Pieces.given('paid').then(
        broken
          ? piece(
              'broken',
              ['paid'],
              q`broken as (insert into x402_nonces (payer) select null from paid)`,
            )
          : piece('ran', ['paid'], q`ran as (select 1 from paid)`),
      ),
      result: q`jsonb_build_object('secret', ${ctx.paymentId}::text)`,
    }));
    const offer = {
      description: 'probe',
      options: [{ chain: 'base' as const, payTo: newWallet().address, amount: 10_000 }],
    };
    const paidWith = async (header?: string) => {
      const req = { method: 'POST', url: '/probe-links', headers: {} as Record<string, string> };
      if (header) req.headers['payment-signature'] = header;
      return deps().x402.paid(req, offer);
    };
    const prompt = await paidWith().then(
      () => undefined,
      (e: unknown) => (e as AppError).extras.headers!['PAYMENT-REQUIRED']!,
    );
    const required = JSON.parse(Buffer.from(prompt!, 'base64').toString('utf8')) as Parameters<
      typeof signPayment
    >[1];
    const signed = await signPayment(newWallet(), required, required.accepts[0]!, {
      paymentId: `pay_${randomUUID()}`,
    });
    const run = async (header: string) =>
      processor.run({
        operation: 'probe-links',
        payment: await paidWith(header),
        context: {},
        answerMintsLinks: true,
      });
    // money moves, the completion fails twice: the settlement is on record, nobody answered
    await expect(run(signed.header)).rejects.toThrow();
    const [held] = await deps().sql<{ status: string }[]>`
      select status from x402_payments where nonce = ${signed.nonce}`;
    expect(held!.status).toBe('settled');
    broken = false;
    // the chain's copy (no payment identifier) completes it, and is refused its result
    await expect(run(chainObserverCopy(signed.payload))).rejects.toMatchObject({
      code: 'payment_verification_failed',
      extras: { reason: 'invalid_exact_evm_nonce_already_used' },
    });
    const [done] = await deps().sql<{ status: string }[]>`
      select status from x402_payments where nonce = ${signed.nonce}`;
    expect(done!.status).toBe('completed');
    // the buyer's retry carries its id: the result
    const again = await run(signed.header);
    expect(again.result).toEqual({ secret: again.paymentId });
  });
});

describe('local facilitator: settlement without a separate verify round trip', () => {
  const nonceRows = async (nonce: string) =>
    (
      await deps().sql<
        { n: number }[]
      >`select count(*)::int as n from x402_nonces where nonce = ${nonce}`
    )[0]!.n;

  it('a purchase never calls verify; settle alone re-checks everything', async () => {
    const p = await signedPurchase();
    let verifies = 0;
    const verify = local.verify.bind(local);
    local.verify = (...args) => {
      verifies++;
      return verify(...args);
    };
    try {
      expect((await p.send()).statusCode).toBe(200);
    } finally {
      local.verify = verify;
    }
    expect(verifies).toBe(0);
    expect(await countOrders(p.item.itemId)).toBe(1);
  });

  it('insufficient balance at settlement is 402 payment_verification_failed: no order, no charge, nonce released', async () => {
    const p = await signedPurchase();
    await local.setBalance(BASE, p.buyer.address, 100_000);
    const res = await p.send();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_insufficient_balance',
    });
    expect(await countOrders(p.item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(100_000);
    expect(await nonceRows(p.nonce)).toBe(0);
    const [pay] = await deps().sql<
      { status: string }[]
    >`select status from x402_payments where nonce = ${p.nonce}`;
    expect(pay!.status).toBe('released');
    // the same signed request gets the same verdict, still without charging
    const again = await p.send();
    expect(again.statusCode).toBe(402);
    expect(again.json()).toEqual(res.json());
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(100_000);
    // the nonce was never spent: once funded, the same authorization buys exactly once
    await local.setBalance(BASE, p.buyer.address, 600_000);
    const ok = await p.send();
    expect(ok.statusCode).toBe(200);
    expect((await p.send()).json().order_id).toBe(ok.json().order_id);
    expect(await countOrders(p.item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE, p.buyer.address)).toBe(100_000);
  });

  it('a nonce already used on the ledger (outside this server) is 402 payment_verification_failed, charged once', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, required.accepts[0]!);
    expect((await local.settle(signed.payload, required.accepts[0]!)).success).toBe(true);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: completion,
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await countOrders(item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE, buyer.address)).toBe(9_500_000);
    expect(await nonceRows(signed.nonce)).toBe(0);
  });
});

describe('local facilitator ledger, one-statement settlement (path without verify)', () => {
  it('moves both balances once, creates unseen balances at the start balance, and aborts an overdraft whole', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 12 });
    const required = promptOf(
      await t.app.inject({ method: 'POST', url: `/api/v1/items/${item.itemId}/acquire` }),
    );
    const requirement = required.accepts[0]!;
    const payTo = requirement.payTo;
    // a never-seen payer starting at 10 USDC cannot pay 12: nothing recorded, nothing moved
    const poor = newWallet();
    const s1 = await signPayment(poor, required, requirement);
    const r1 = await local.settleChecked(s1.payload, requirement);
    expect(r1).toMatchObject({
      rejectedBeforeSettlement: true,
      response: { success: false, errorReason: 'invalid_exact_evm_insufficient_balance' },
    });
    expect(await local.balanceOf(BASE, poor.address)).toBe(10_000_000);
    // the payee is a payout address, which opens at 0 (a payout contract is deployed empty)
    expect(await local.balanceOf(BASE, payTo)).toBe(0);
    expect(
      await local.authorizationState({
        network: BASE,
        asset: requirement.asset,
        payer: poor.address,
        nonce: s1.nonce,
      }),
    ).toEqual({ state: 'unused' });
    // a funded payer (above the start balance) pays once
    const rich = newWallet();
    await local.setBalance(BASE, rich.address, 30_000_000);
    const s2 = await signPayment(rich, required, requirement);
    const r2 = await local.settleChecked(s2.payload, requirement);
    expect(r2).toMatchObject({
      rejectedBeforeSettlement: false,
      response: { success: true, amount: '12000000' },
    });
    expect(await local.balanceOf(BASE, rich.address)).toBe(18_000_000);
    expect(await local.balanceOf(BASE, payTo)).toBe(12_000_000);
    // the same authorization again: rejected before anything moves
    const r3 = await local.settleChecked(s2.payload, requirement);
    expect(r3).toMatchObject({
      rejectedBeforeSettlement: true,
      response: { errorReason: 'invalid_exact_evm_nonce_already_used' },
    });
    // an existing balance that cannot cover the value: no transfer, no moves
    const s4 = await signPayment(rich, required, requirement);
    await local.setBalance(BASE, rich.address, 11_999_999);
    const r4 = await local.settleChecked(s4.payload, requirement);
    expect(r4).toMatchObject({
      rejectedBeforeSettlement: true,
      response: { errorReason: 'invalid_exact_evm_insufficient_balance' },
    });
    expect(await local.balanceOf(BASE, rich.address)).toBe(11_999_999);
    expect(await local.balanceOf(BASE, payTo)).toBe(12_000_000);
    // settlement failures that are not rejections keep their classification
    local.injectFault({ op: 'settle', outcome: 'failed' });
    expect(await local.settleChecked(s4.payload, requirement)).toMatchObject({
      rejectedBeforeSettlement: false,
      response: { success: false },
    });
  });
});
