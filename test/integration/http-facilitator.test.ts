import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpFacilitator } from '../../src/x402/facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { startFakeFacilitator, type FakeFacilitator } from '../helpers/fake-facilitator.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/** The HTTP facilitator client against a loopback facilitator speaking the x402 wire format. */
let t: TestContext;
let fake: FakeFacilitator;
beforeAll(async () => {
  fake = await startFakeFacilitator();
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'httpfac-')),
    FACILITATOR_URL: fake.url,
    FACILITATOR_TIMEOUT_MS: '500',
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests = [];
});

async function purchase() {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, required, required.accepts[0]!);
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'payment-signature': signed.header },
    payload: { policy_accepted: true, license_accepted: true },
  });
  return { res, required, signed, buyer };
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

  it('without RPC the reconciler leaves an unknown settlement unresolved instead of guessing', async () => {
    const report = await t.runtime.deps.payments.reconcile({ staleSeconds: 0 });
    expect(report.completed).toBe(0);
    expect(report.released).toBe(0);
    expect(report.unresolved).toBeGreaterThanOrEqual(2);
  });
});
