import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reconcilePayments } from '../../src/domain/payments/reconciler.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { startFakeFacilitator, type FakeFacilitator } from '../helpers/fake-facilitator.js';
import { FAKE_BLOCK_SECONDS, startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * What the reconciler learns from an RPC node (issue 25, operator-facing): a node that lacks or
 * fails a method the recheck needs says so in ONE warning per cause per period, naming the method
 * and the claims waiting on it; and a transfer mined long before the recheck (more than one
 * `eth_getLogs` window back) still gives its order the transaction hash.
 */
let t: TestContext;
let fake: FakeFacilitator;
let rpc: FakeRpc;
beforeAll(async () => {
  fake = await startFakeFacilitator();
  rpc = await startFakeRpc();
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'chainreads-')),
    FACILITATOR_URL: fake.url,
    FACILITATOR_TIMEOUT_MS: '3000',
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
  rpc.unsupported.clear();
  rpc.resetHead();
  delete rpc.maxLogRange;
  fake.mode = 'settle_pending';
});

/** A purchase whose settlement the facilitator answered pending: a claim the reconciler decides. */
async function pendingPurchase() {
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
  expect(res.statusCode).toBe(409);
  const [row] = await t.runtime.deps.sql<{ id: string }[]>`
    select id from x402_payments where nonce = ${signed.nonce}`;
  return { buyer, nonce: signed.nonce, paymentId: row!.id };
}

interface Line {
  level: number;
  msg: string;
  rpcMethod?: string | null;
  claims?: number;
  network?: string;
}

/** One reconciler pass with its log lines. */
async function pass(chainWarnSeconds: number): Promise<Line[]> {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  await reconcilePayments(t.runtime.deps.payments, {
    staleSeconds: 0,
    alertAfterSeconds: 86_400,
    chainWarnSeconds,
    logger,
    paymentIdRetentionSeconds: 86_400,
  });
  return lines.map((l) => JSON.parse(l) as Line);
}

const warnings = (lines: Line[]) => lines.filter((l) => l.level === 40);

async function orderTransaction(paymentId: string): Promise<string | undefined> {
  const [order] = await t.runtime.deps.sql<{ transaction: string }[]>`
    select transaction from orders where payment_id = ${paymentId}`;
  return order?.transaction;
}

describe('a node without a method the recheck needs', () => {
  it('is named in one warning per period with the claims waiting on it, not one line per claim per pass', async () => {
    const claims = await Promise.all([pendingPurchase(), pendingPurchase(), pendingPurchase()]);
    rpc.unsupported.add('eth_getBlockByNumber');
    const first = warnings(await pass(600));
    expect(first).toEqual([
      expect.objectContaining({
        rpcMethod: 'eth_getBlockByNumber',
        network: 'eip155:8453',
        claims: 3,
        msg: expect.stringContaining('eth_getBlockByNumber') as unknown,
      }),
    ]);
    // the next passes within the period say nothing more
    expect(warnings(await pass(600))).toEqual([]);
    expect(warnings(await pass(600))).toEqual([]);
    // a period later (0 here): one line again, still for the three claims
    expect(warnings(await pass(0))).toEqual([
      expect.objectContaining({ rpcMethod: 'eth_getBlockByNumber', claims: 3 }),
    ]);
    // the node answers again: the claims are decided (still inside their window) and nothing is warned
    rpc.unsupported.clear();
    for (const c of claims)
      rpc.mine(c.buyer.address, c.nonce, `0x${'ab'.repeat(31)}0${claims.indexOf(c)}`);
    expect(warnings(await pass(0))).toEqual([]);
    for (const c of claims) expect(await orderTransaction(c.paymentId)).toMatch(/^0x/);
  });

  it('a failing log search keeps the claim open (no order without its hash) and names eth_getLogs', async () => {
    const claim = await pendingPurchase();
    // used on chain by another transaction than the facilitator's: only the token's event names it
    rpc.mine(claim.buyer.address, claim.nonce, `0x${'cd'.repeat(32)}`);
    rpc.receipts.clear();
    rpc.unsupported.add('eth_getLogs');
    expect(warnings(await pass(0))).toEqual([
      expect.objectContaining({ rpcMethod: 'eth_getLogs', claims: 1 }),
    ]);
    expect(await orderTransaction(claim.paymentId)).toBeUndefined();
    rpc.unsupported.clear();
    await pass(0);
    expect(await orderTransaction(claim.paymentId)).toBe(`0x${'cd'.repeat(32)}`);
  });
});

describe('a transfer mined more than one log window before the recheck', () => {
  it('gives the order its transaction hash, searching back to the claim', async () => {
    const claim = await pendingPurchase();
    // the claim was made 14 h ago (25,000 blocks); the reconciler reads the chain now
    const age = 25_000 * FAKE_BLOCK_SECONDS;
    await t.runtime.deps.sql`
      update x402_payments set created_at = now() - make_interval(secs => ${age})
      where id = ${claim.paymentId}`;
    rpc.head.number = 50_000n;
    rpc.maxLogRange = 10_000n;
    // a replacement transaction (not the facilitator's) used the authorization at the claim's time
    const tx = `0x${'ef'.repeat(32)}`;
    rpc.mine(claim.buyer.address, claim.nonce, tx, undefined, 25_000n);
    rpc.receipts.clear();
    rpc.logRanges.length = 0;
    await pass(0);
    expect(await orderTransaction(claim.paymentId)).toBe(tx);
    // windows of at most 10,000 blocks, newest first, stopping once past the claim
    expect(rpc.logRanges.length).toBe(3);
    expect(rpc.logRanges.every(([from, to]) => to - from + 1n <= 10_000n)).toBe(true);
  });
});
