import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { reconcilePayments, unresolvedPayments } from '../../src/domain/payments/reconciler.js';
import { reconcileNow } from '../../src/runtime.js';
import { HttpFacilitator } from '../../src/x402/facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { startFakeFacilitator, type FakeFacilitator } from '../helpers/fake-facilitator.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { idPayer } from '../helpers/payment-id.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/** The HTTP facilitator client against a loopback facilitator speaking the x402 wire format. */
let t: TestContext;
let fake: FakeFacilitator;
let rpc: FakeRpc;
/** Long enough that a slow CI run never turns an answer into a false "pending". */
const TIMEOUT_MS = 3_000;
beforeAll(async () => {
  fake = await startFakeFacilitator();
  rpc = await startFakeRpc();
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'httpfac-')),
    FACILITATOR_URL: fake.url,
    FACILITATOR_TIMEOUT_MS: String(TIMEOUT_MS),
    RPC_URL_BASE: rpc.url,
    RPC_URL_POLYGON: rpc.url,
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await rpc?.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.slowMs = TIMEOUT_MS + 2_000;
  fake.requests = [];
});

/** A signed purchase, not sent yet: `send()` posts the completion (again and again). */
async function signedPurchase(opts: { validForSeconds?: number } = {}) {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const now = Math.floor(Date.now() / 1000);
  const signed = await signPayment(buyer, required, required.accepts[0]!, {
    ...(opts.validForSeconds && {
      authorization: { validBefore: String(now + opts.validForSeconds) },
    }),
  });
  const send = () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { policy_accepted: true, license_accepted: true },
    });
  return { required, signed, buyer, send };
}

async function purchase() {
  const p = await signedPurchase();
  return { ...p, res: await p.send() };
}

describe('HttpFacilitator over the x402 wire protocol', () => {
  it('is the configured facilitator and reads /supported', async () => {
    expect(t.runtime.deps.facilitator).toBeInstanceOf(HttpFacilitator);
    const supported = await t.runtime.deps.facilitator.getSupported();
    expect(supported.kinds.map((k) => k.network)).toEqual(['eip155:8453', 'eip155:137']);
  });

  it('verifies then settles with the issued requirement and the signed payload', async () => {
    const { res, required, signed } = await purchase();
    expect(res.statusCode).toBe(200);
    expect(fake.requests.map((r) => [r.path, r.valid])).toEqual([
      ['/verify', true],
      ['/settle', true],
    ]);
    const sent = fake.requests[1]!.body as {
      x402Version: number;
      paymentPayload: { accepted: unknown; payload: unknown };
      paymentRequirements: unknown;
    };
    expect(sent.x402Version).toBe(2);
    expect(sent.paymentRequirements).toEqual(required.accepts[0]);
    expect(sent.paymentPayload.accepted).toEqual(required.accepts[0]);
    expect(sent.paymentPayload.payload).toEqual(signed.payload.payload);
  });

  it('a payment-identifier retry (fresh signature, same id) never reaches /verify or /settle', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const send = async () => {
      const signed = await buyer.sign(required, id);
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
      return { res, nonce: signed.nonce };
    };
    const first = await send();
    expect(first.res.statusCode).toBe(200);
    // both at once as well: the one claim wins, the others read its order
    const retries = await Promise.all([send(), send()]);
    for (const r of retries) expect(r.res.json().order_id).toBe(first.res.json().order_id);
    const nonces = fake.requests.map(
      (r) =>
        (r.body as { paymentPayload: { payload: { authorization: { nonce: string } } } })
          .paymentPayload.payload.authorization.nonce,
    );
    expect(fake.requests.map((r) => r.path)).toEqual(['/verify', '/settle']);
    expect(new Set(nonces)).toEqual(new Set([first.nonce]));
  });

  it('maps facilitator answers onto spec 7.1', async () => {
    fake.mode = 'verify_invalid';
    let { res } = await purchase();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_insufficient_balance',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/verify']);

    fake.mode = 'settle_capacity';
    ({ res } = await purchase());
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'settlement_capacity', retry_after: 5 });

    fake.mode = 'settle_failed';
    ({ res } = await purchase());
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_settlement_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_transaction_failed',
      // a remote facilitator: the transfer may be mined until then (validBefore + the grace)
      decided_after: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
    });

    fake.mode = 'settle_pending';
    ({ res } = await purchase());
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error: 'payment_settlement_pending',
      transaction: expect.stringMatching(/^0x/),
      network: 'eip155:8453',
    });

    // a settle that outlives the client timeout may have been broadcast: pending, not capacity
    fake.mode = 'settle_slow';
    ({ res } = await purchase());
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      error: 'payment_settlement_pending',
      network: 'eip155:8453',
    });
  });

  it('the reconciler resolves a settlement of unknown outcome from the chain, never by guessing', async () => {
    fake.mode = 'settle_pending';
    const { res, signed, buyer, send } = await purchase();
    expect(res.statusCode).toBe(409);
    const orderId = (res.json() as { order_id: string }).order_id;
    // Not used on chain yet and still inside its window: it could still land, so it stays open.
    let report = await reconcileNow(t.runtime.deps, 0);
    expect(report.completed).toBe(0);
    const [open] = await t.runtime.deps.sql<{ status: string }[]>`
      select status from x402_payments where nonce = ${signed.nonce}`;
    expect(open!.status).toBe('pending');
    // The token records the authorization as used: the order is completed from the chain.
    rpc.usedAuthorizations.add(`${buyer.address.toLowerCase()}:${signed.nonce}`);
    report = await reconcileNow(t.runtime.deps, 0);
    expect(report.completed).toBeGreaterThanOrEqual(1);
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ order_id: orderId });
  });

  it('a settle whose request died keeps answering 409 pending with the order id past the window, and operators see it', async () => {
    fake.mode = 'settle_hang';
    // A short window: two seconds from now the guard would refuse this authorization as expiring.
    const { signed, send } = await signedPurchase({ validForSeconds: 7 });
    const first = send(); // the facilitator took the settle and never answers
    const sql = t.runtime.deps.sql;
    let claimed: { id: string; status: string; context: { orderId: string } } | undefined;
    for (let i = 0; i < 100 && !claimed; i++) {
      await new Promise((r) => setTimeout(r, 20));
      [claimed] = await sql<{ id: string; status: string; context: { orderId: string } }[]>`
        select id, status, context from x402_payments where nonce = ${signed.nonce}`;
    }
    expect(claimed?.status).toBe('settling');
    await new Promise((r) => setTimeout(r, 2_500)); // the window the guard accepts has closed
    const retry = await send();
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toMatchObject({
      error: 'payment_settlement_pending',
      order_id: claimed!.context.orderId,
      network: 'eip155:8453',
    });
    expect((await first).statusCode).toBe(409);
    // Operators: the unresolved settlement is listed, and logged at error level on every pass.
    const listed = await unresolvedPayments(t.runtime.deps.payments.store, 0);
    expect(listed.map((p) => p.paymentId)).toContain(claimed!.id);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    await reconcilePayments(t.runtime.deps.payments, {
      staleSeconds: 0,
      alertAfterSeconds: 0,
      logger,
      paymentIdRetentionSeconds: 86_400,
    });
    const alerts = lines.map((l) => JSON.parse(l) as { level: number; paymentId?: string });
    expect(alerts.some((a) => a.level === 50 && a.paymentId === claimed!.id)).toBe(true);
    // Still pending after another retry, until the chain says otherwise.
    expect((await send()).statusCode).toBe(409);
  });
});
