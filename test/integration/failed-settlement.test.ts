import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { overview } from '../../src/domain/operator/overview.js';
import { unresolvedSettlements } from '../../src/domain/operator/payments.js';
import { readBacklog } from '../../src/domain/ops/backlog.js';
import { reconcilePayments, unresolvedPayments } from '../../src/domain/payments/reconciler.js';
import { reconcileNow } from '../../src/runtime.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import type { FakeFacilitator, FakeMode } from '../helpers/fake-facilitator.js';
import type { FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { idPayer } from '../helpers/payment-id.js';
import { at, startRemoteRail, validBeforeOf, type RemoteRail } from '../helpers/remote-rail.js';
import { sellerStatus, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A remote facilitator may answer a settlement FAILURE after it broadcast the transfer (its
 * receipt wait timed out), and the transfer can still be mined: the buyer is then charged. Such a
 * payment is revisited (the reconciler's passes, the buyer's retry of the same payment) until the
 * chain decides it: mined -> completed with exactly one order; window closed and the
 * authorization unused -> final, never asked about again. The facilitator (x402 wire protocol)
 * and the chain (JSON-RPC: the token's `authorizationState`) are loopback servers. Runs on the
 * Postgres tier too (TEST_TIER=postgres), where concurrent passes really run in parallel.
 */
let rail: RemoteRail;
let t: SellingContext;
let fake: FakeFacilitator;
let rpc: FakeRpc;
beforeAll(async () => {
  // a test here moves the clock past a window: nothing settling may look abandoned meanwhile
  // (passes are run with staleSeconds 0 where a test wants one)
  rail = await startRemoteRail({ RECONCILE_STALE_SECONDS: '3600' });
  ({ t, fake, rpc } = rail);
});
afterAll(() => rail?.close());
beforeEach(() => {
  fake.mode = 'ok';
  rpc.resetHead();
});

const LEGAL = { policy_accepted: true, license_accepted: true };

/**
 * A purchase whose settlement the facilitator answers as failed (402), in `mode` (with a
 * transaction hash: `settle_failed_broadcast`); `send()` retries it.
 */
async function failedPurchase(mode: FakeMode = 'settle_failed') {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, required, required.accepts[0]!);
  const send = () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: LEGAL,
    });
  fake.mode = mode;
  const res = await send();
  fake.mode = 'ok';
  expect(res.statusCode).toBe(402);
  // when it is decided (the transfer may be mined until then): the buyer signs nothing new before
  const decidedAfter = new Date(
    (validBeforeOf(signed.payload) + t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS) * 1000,
  ).toISOString();
  expect(res.json()).toMatchObject({
    error: 'payment_settlement_failed',
    decided_after: decidedAfter,
  });
  const [row] = await t.runtime.deps.sql<{ id: string; transaction: string | null }[]>`
    select id, transaction from x402_payments where nonce = ${signed.nonce}`;
  return { item, buyer, signed, send, paymentId: row!.id, transaction: row!.transaction };
}

/** What the buyer got for this item: orders, their legal audit rows, the payment's state. */
async function recorded(itemId: string, paymentId: string) {
  const [r] = await t.runtime.deps.sql<{ orders: number; audits: number; status: string }[]>`
    select (select count(*)::int from orders where item_id = ${itemId}) as orders,
           (select count(*)::int from legal_acceptances l join orders o on o.id = l.order_id
             where o.item_id = ${itemId}) as audits,
           (select status from x402_payments where id = ${paymentId}) as status`;
  return r!;
}

/** The buyer got exactly one order for this item, with its legal audit row; the payment completed. */
async function expectPlacedOnce(itemId: string, paymentId: string) {
  expect(await recorded(itemId, paymentId)).toEqual({ orders: 1, audits: 1, status: 'completed' });
}

/**
 * Whether operators see the payment as unresolved: `npm run payments:unresolved`, the console's
 * payments page, and the counts they are alerted on (the `settlements_unresolved` metric, the
 * console's overview) all count the same payments.
 */
async function listed(paymentId: string) {
  const { sql } = t.runtime.deps;
  const all = await unresolvedPayments(t.runtime.deps.payments.store, 0);
  const command = all.some((p) => p.paymentId === paymentId);
  const page = (await unresolvedSettlements(sql)).some((p) => p.payment_id === paymentId);
  expect(page).toBe(command);
  expect((await readBacklog(sql)).unresolved).toBe(all.length);
  expect((await overview(sql)).unresolved_settlements).toBe(all.length);
  return command;
}

/** X402_CHAIN_CLOCK_GRACE_SECONDS: how long past `validBefore` a transfer may still be mined. */
const grace = () => t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS;

/** One reconciler pass as the periodic task runs it, with this stale threshold and limit. */
const reconcilePass = (staleSeconds: number, limit?: number) =>
  reconcilePayments(t.runtime.deps.payments, {
    staleSeconds,
    alertAfterSeconds: 600,
    logger: t.runtime.deps.logger,
    paymentIdRetentionSeconds: 86_400,
    ...(limit !== undefined && { limit }),
  });

describe('a settlement answered as failed', () => {
  it('mined after all: the reconciler places one order and the buyer retrying the same payment downloads it', async () => {
    const { item, buyer, signed, send, paymentId } = await failedPurchase();
    // not used on chain yet, its window still open: undecided, and operators see it
    let report = await reconcileNow(t.runtime.deps, 0);
    expect(report.completed).toBe(0);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 0, status: 'failed' });
    expect(await listed(paymentId)).toBe(true);
    // the transfer the facilitator gave up on is mined
    const tx = `0x${'cd'.repeat(32)}`;
    rpc.mine(buyer.address, signed.nonce, tx);
    report = await reconcileNow(t.runtime.deps, 0);
    expect(report.completed).toBe(1);
    await expectPlacedOnce(item.itemId, paymentId);
    expect(await listed(paymentId)).toBe(false);
    const [order] = await t.runtime.deps.sql<{ id: string; transaction: string }[]>`
      select id, transaction from orders where item_id = ${item.itemId}`;
    expect(order!.transaction).toBe(tx);
    // the buyer's retry of the same payment: that order, with a working download link
    const settles = fake.requests.filter((r) => r.path === '/settle').length;
    const retry = await send();
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ order_id: order!.id });
    const file = await t.app.inject(
      (retry.json() as { download_url: string }).download_url.replace(
        'http://marketplace.test',
        '',
      ),
    );
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(item.bytes)).toBe(true);
    // nothing settled again, nothing recorded twice
    expect(fake.requests.filter((r) => r.path === '/settle').length).toBe(settles);
    expect((await reconcileNow(t.runtime.deps, 0)).completed).toBe(0);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 1, audits: 1 });
  });

  it('mined after all, no pass yet: the buyer retrying the same payment gets the purchase at once', async () => {
    const { item, buyer, signed, send, paymentId } = await failedPurchase();
    // still undecided: the retry answers the failure, and when it is decided, as before
    expect((await send()).json()).toMatchObject({
      error: 'payment_settlement_failed',
      decided_after: expect.any(String),
    });
    rpc.mine(buyer.address, signed.nonce, `0x${'ce'.repeat(32)}`);
    // two copies at once: the first answer of a payment completed out of band gets the links; the
    // other copy (no payment identifier: what the chain shows) names the same order, no link
    const retries = await Promise.all([send(), send()]);
    expect(retries.map((r) => r.statusCode).sort()).toEqual([200, 402]);
    expect(retries[0]!.json().order_id).toBe(retries[1]!.json().order_id);
    expect(retries.find((r) => r.statusCode === 402)!.body).not.toMatch(/download|sig=/);
    await expectPlacedOnce(item.itemId, paymentId);
  });

  it('two reconciler passes at once (and a retry): one order', async () => {
    const { item, buyer, signed, send, paymentId } = await failedPurchase();
    rpc.mine(buyer.address, signed.nonce, `0x${'cf'.repeat(32)}`);
    const pass = () => reconcilePass(0);
    const [a, b, retry] = await Promise.all([pass(), pass(), send()]);
    expect(a.unresolved + b.unresolved).toBe(0);
    expect(retry.statusCode).toBe(200);
    await expectPlacedOnce(item.itemId, paymentId);
    const [order] = await t.runtime.deps.sql<{ id: string }[]>`
      select id from orders where item_id = ${item.itemId}`;
    expect(retry.json()).toMatchObject({ order_id: order!.id });
  });

  it('a pass takes at most its limit, least recently asked first: an undecided failure never starves a mined one', async () => {
    const undecided = await failedPurchase();
    const mined = await failedPurchase();
    rpc.mine(mined.buyer.address, mined.signed.nonce, `0x${'d1'.repeat(32)}`);
    const pass = () => reconcilePass(0, 1);
    // the older one first: still undecided, so it waits its turn behind the other
    expect(await pass()).toMatchObject({ completed: 0, unresolved: 1 });
    expect(await pass()).toMatchObject({ completed: 1, unresolved: 0 });
    expect(await recorded(mined.item.itemId, mined.paymentId)).toMatchObject({ orders: 1 });
    expect(await recorded(undecided.item.itemId, undecided.paymentId)).toMatchObject({
      orders: 0,
      status: 'failed',
    });
    expect(await listed(undecided.paymentId)).toBe(true);
  });

  it('never used and its window closed: final, the payment answers failed and the reconciler stops asking', async () => {
    const { item, buyer, signed, send, paymentId } = await failedPurchase();
    expect(await listed(paymentId)).toBe(true);
    const key = `${buyer.address.toLowerCase()}:${signed.nonce}`;
    const asks = () => rpc.asked.filter((k) => k === key).length;
    // past the window by more than the chain's clock may lag behind ours
    await at(validBeforeOf(signed.payload) + grace() + 60, async () => {
      const report = await reconcileNow(t.runtime.deps, 0);
      expect(report.failed).toBeGreaterThanOrEqual(1);
      expect(asks()).toBe(1);
      expect(await listed(paymentId)).toBe(false);
      // the same payment again: its failure; neither the retry nor later passes ask the chain
      const retry = await send();
      expect(retry.statusCode).toBe(402);
      expect(retry.json()).toMatchObject({ error: 'payment_settlement_failed' });
      await reconcileNow(t.runtime.deps, 0);
      expect(asks()).toBe(1);
    });
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 0, status: 'failed' });
  });

  it('a listing fee mined after all: the listing is made once, with its archive bytes kept meanwhile', async () => {
    const seller = newWallet();
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const post = (header?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/items',
        payload: req.payload,
        headers: { ...req.headers, ...(header && { 'payment-signature': header }) },
      });
    const prompt = promptOf(await post());
    const signed = await signPayment(seller, prompt, prompt.accepts[0]!);
    fake.mode = 'settle_failed';
    const res = await post(signed.header);
    fake.mode = 'ok';
    expect(res.json()).toMatchObject({ error: 'payment_settlement_failed' });
    rpc.mine(seller.address, signed.nonce, `0x${'d0'.repeat(32)}`);
    expect((await reconcileNow(t.runtime.deps, 0)).completed).toBe(1);
    const items = () => t.runtime.deps.sql<{ id: string }[]>`
      select i.id from items i join agents a on a.id = i.seller_id
      where a.address = ${seller.address.toLowerCase()}`;
    const [item] = await items();
    // its bytes were kept while the fee was undecided: the scan reads them and lists it
    await t.work();
    expect((await sellerStatus(t, seller, item!.id)).status).toBe('active');
    // the seller's retry of the same upload: that listing, once
    const retry = await post(signed.header);
    expect(retry.statusCode).toBe(202);
    expect(retry.json()).toMatchObject({ item_id: item!.id });
    expect(await items()).toHaveLength(1);
  });
});

/**
 * `transferWithAuthorization` checks `block.timestamp < validBefore`, and block timestamps lag
 * real time (our clock may run fast too): a transfer can be mined shortly after our clock passed
 * `validBefore`. So an unused authorization counts as never moving money only
 * X402_CHAIN_CLOCK_GRACE_SECONDS (120) past it; before that, releasing its claim or making its
 * failure final would lose the order of a buyer who was charged.
 */
describe("decided on the chain's clock", () => {
  it('a failure at settlement just past its window (our clock) stays undecided: mined then, it gets its order', async () => {
    const { item, buyer, signed, paymentId } = await failedPurchase();
    await at(validBeforeOf(signed.payload) + 60, async () => {
      await reconcileNow(t.runtime.deps, 0);
      // not final: still listed, and asked again
      expect(await listed(paymentId)).toBe(true);
      // the chain's clock was behind ours: the transfer is mined now
      rpc.mine(buyer.address, signed.nonce, `0x${'e1'.repeat(32)}`);
      expect((await reconcileNow(t.runtime.deps, 0)).completed).toBe(1);
    });
    await expectPlacedOnce(item.itemId, paymentId);
  });

  it('a claim abandoned (its request died) just past its window (our clock) is not released: mined then, it gets its order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, required.accepts[0]!);
    // the facilitator broadcast the transfer, then the request died before recording anything
    t.runtime.deps.payments.testHooks.afterSettle = () => {
      throw new Error('simulated crash after settlement');
    };
    try {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: LEGAL,
      });
      expect(res.statusCode).toBe(500);
    } finally {
      t.runtime.deps.payments.testHooks = {};
    }
    const [row] = await t.runtime.deps.sql<{ id: string }[]>`
      select id from x402_payments where nonce = ${signed.nonce}`;
    await at(validBeforeOf(signed.payload) + 60, async () => {
      await reconcileNow(t.runtime.deps, 0);
      // not released: the nonce is still held, the claim still open
      expect(await recorded(item.itemId, row!.id)).toMatchObject({ status: 'settling' });
      // the chain's clock was behind ours: the transfer is mined now
      rpc.mine(buyer.address, signed.nonce, `0x${'e2'.repeat(32)}`);
      expect((await reconcileNow(t.runtime.deps, 0)).completed).toBe(1);
    });
    await expectPlacedOnce(item.itemId, row!.id);
  });

  it("a failure at settlement long past the grace (our clock) while the chain's head is before validBefore is not final: mined on catch-up, its order", async () => {
    const { item, buyer, signed, send, paymentId } = await failedPurchase();
    const end = validBeforeOf(signed.payload);
    // the chain halted, or our node is stuck behind: the head it serves is stamped before the end
    rpc.head = { number: 5n, timestamp: end - 30 };
    await at(end + grace() + 3600, async () => {
      await reconcileNow(t.runtime.deps, 0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'failed' });
      expect(await listed(paymentId)).toBe(true);
      // the chain catches up: the transfer lands in a block stamped before validBefore
      rpc.head = { number: 6n, timestamp: end - 28 };
      rpc.mine(buyer.address, signed.nonce, `0x${'e3'.repeat(32)}`);
      await reconcileNow(t.runtime.deps, 0);
    });
    await expectPlacedOnce(item.itemId, paymentId);
    expect((await send()).statusCode).toBe(200);
  });
});

describe('a reconciler pass never starves', () => {
  it('a claim stuck pending (the facilitator never answers) waits its turn behind an abandoned one that was mined', async () => {
    const { sql } = t.runtime.deps;
    const stuck = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
    const stuckUrl = `/api/v1/items/${stuck.itemId}/acquire`;
    let required = promptOf(await t.app.inject({ method: 'POST', url: stuckUrl }));
    const stuckSigned = await signPayment(newWallet(), required, required.accepts[0]!);
    fake.mode = 'settle_pending';
    const pending = await t.app.inject({
      method: 'POST',
      url: stuckUrl,
      headers: { 'payment-signature': stuckSigned.header },
      payload: LEGAL,
    });
    expect(pending.statusCode).toBe(409);
    // a purchase whose request died right after the facilitator settled it (mined on chain)
    fake.mode = 'ok';
    const mined = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
    const minedUrl = `/api/v1/items/${mined.itemId}/acquire`;
    required = promptOf(await t.app.inject({ method: 'POST', url: minedUrl }));
    const minedSigned = await signPayment(newWallet(), required, required.accepts[0]!);
    fake.onSettle = (s) => rpc.mine(s.payer, s.nonce, s.transaction);
    t.runtime.deps.payments.testHooks.afterSettle = () => {
      throw new Error('simulated crash after settlement');
    };
    try {
      const crashed = await t.app.inject({
        method: 'POST',
        url: minedUrl,
        headers: { 'payment-signature': minedSigned.header },
        payload: LEGAL,
      });
      expect(crashed.statusCode).toBe(500);
    } finally {
      t.runtime.deps.payments.testHooks = {};
      fake.onSettle = undefined;
    }
    // the stuck one is the older: it comes first
    await sql`update x402_payments set updated_at = now() - interval '2 hours'
      where nonce = ${stuckSigned.nonce}`;
    await sql`update x402_payments set updated_at = now() - interval '1 hour'
      where nonce = ${minedSigned.nonce}`;
    const pass = () => reconcilePass(60, 1);
    expect(await pass()).toMatchObject({ completed: 0, unresolved: 1 });
    expect(await pass()).toMatchObject({ completed: 1, unresolved: 0 });
    const [row] = await sql<{ id: string }[]>`
      select id from x402_payments where nonce = ${minedSigned.nonce}`;
    await expectPlacedOnce(mined.itemId, row!.id);
    // the stuck one is asked again once its turn comes (staleSeconds after it was asked)
    const [stuckRow] = await sql<{ id: string; status: string }[]>`
      select id, status from x402_payments where nonce = ${stuckSigned.nonce}`;
    expect(stuckRow!.status).toBe('pending');
    expect(await listed(stuckRow!.id)).toBe(true);
  });
});

/**
 * A settlement left `pending` (the facilitator broadcast it and answered with its hash) whose
 * transaction is dropped and never mined: once the window closed on the chain's clock (validBefore
 * + X402_CHAIN_CLOCK_GRACE_SECONDS) and the token still says the nonce is unused, it can never
 * move money, so the reconciler releases it (off the unresolved list and counts), and the buyer's
 * retry with the same payment id runs anew like any final failure. Used after all (mined late,
 * even by another transaction): completed once, with the transaction that moved the money.
 */
describe('a pending settlement whose transaction was dropped', () => {
  /** A purchase carrying a payment id that the facilitator answers as pending (409). */
  async function pendingPurchase() {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const signed = await buyer.sign(prompt, id);
    const acquire = (header: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': header },
        payload: LEGAL,
      });
    fake.mode = 'settle_pending';
    const res = await acquire(signed.header);
    fake.mode = 'ok';
    expect(res.statusCode).toBe(409);
    const { transaction } = res.json() as { transaction: string };
    const [row] = await t.runtime.deps.sql<{ id: string; transaction: string }[]>`
      select id, transaction from x402_payments where nonce = ${signed.nonce}`;
    expect(row!.transaction).toBe(transaction);
    /** The same purchase with the same id, signed afresh (a new nonce). */
    const retry = async () => acquire((await buyer.sign(prompt, id)).header);
    return { item, buyer, signed, acquire, retry, paymentId: row!.id, transaction };
  }
  const settles = () => fake.requests.filter((r) => r.path === '/settle').length;
  const orderOf = async (itemId: string) =>
    t.runtime.deps.sql<{ id: string; transaction: string }[]>`
      select id, transaction from orders where item_id = ${itemId}`;

  it('never mined and its window closed: released, off the unresolved list; the same id signed afresh buys once', async () => {
    const { item, signed, acquire, retry, paymentId } = await pendingPurchase();
    // its window still open: it may yet be mined, so it stays pending and listed
    await reconcilePass(0);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
    expect(await listed(paymentId)).toBe(true);
    // just past the window by our clock: the chain's clock may lag, still undecided
    await at(validBeforeOf(signed.payload) + 60, async () => {
      await reconcilePass(0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
    });
    await at(validBeforeOf(signed.payload) + grace() + 60, async () => {
      expect((await reconcilePass(0)).released).toBeGreaterThanOrEqual(1);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({
        orders: 0,
        status: 'released',
      });
      expect(await listed(paymentId)).toBe(false);
      // the dropped authorization itself: expired, nothing settled
      const before = settles();
      const stale = await acquire(signed.header);
      expect(stale.statusCode).toBe(402);
      expect(settles()).toBe(before);
      // the same purchase with the same id, signed afresh: run anew, one charge, one order
      const bought = await retry();
      expect(bought.statusCode).toBe(200);
      expect(settles()).toBe(before + 1);
      const again = await retry();
      expect(again.json().order_id).toBe(bought.json().order_id);
      expect(settles()).toBe(before + 1);
    });
    expect(await orderOf(item.itemId)).toHaveLength(1);
  });

  it("past the grace on our clock while the chain's head is before validBefore: not released; mined on catch-up: one order, one charge, the same id signed afresh charged nothing", async () => {
    const { item, buyer, signed, retry, paymentId, transaction } = await pendingPurchase();
    const end = validBeforeOf(signed.payload);
    const before = settles();
    // the chain halted, or our node is stuck behind: the head it serves is stamped before the end,
    // so the nonce reads unused and the transaction has no receipt yet
    rpc.head = { number: 7n, timestamp: end - 30 };
    await at(end + grace() + 3600, async () => {
      await reconcilePass(0);
      // the token's record is read at that head block
      expect(rpc.askedAt.at(-1)).toBe('0x7');
      expect(await recorded(item.itemId, paymentId)).toMatchObject({
        orders: 0,
        status: 'pending',
      });
      expect(await listed(paymentId)).toBe(true);
      // the buyer's retry of the old claim with the same id signed afresh asks too: still open
      await olderThanStale(paymentId);
      expect((await retry()).json()).toMatchObject({ error: 'payment_settlement_pending' });
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
      // the chain catches up: the broadcast transfer lands in a block stamped before validBefore
      rpc.head = { number: 8n, timestamp: end - 28 };
      rpc.mine(buyer.address, signed.nonce, transaction);
      await reconcilePass(0);
      await expectPlacedOnce(item.itemId, paymentId);
      const [order] = await orderOf(item.itemId);
      expect(order!.transaction).toBe(transaction);
      // the same purchase id signed afresh: answered from the record, charged once in all
      expect((await retry()).json()).toMatchObject({ order_id: order!.id });
      expect(settles()).toBe(before);
    });
  });

  it("released once the chain's head is stamped at validBefore with the nonce unused (and our clock past the grace); never while the head cannot be read", async () => {
    const { item, signed, paymentId } = await pendingPurchase();
    const end = validBeforeOf(signed.payload);
    await at(end + grace() + 3600, async () => {
      rpc.head = { unavailable: true };
      await reconcilePass(0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
      // the last block in which the token still accepts it
      rpc.head = { timestamp: end - 1 };
      await reconcilePass(0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
      rpc.head = { timestamp: end };
      expect((await reconcilePass(0)).released).toBeGreaterThanOrEqual(1);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({
        orders: 0,
        status: 'released',
      });
      expect(await listed(paymentId)).toBe(false);
    });
  });

  it('just past the grace on our clock with the head at validBefore: still open (the grace stays a margin)', async () => {
    const { item, signed, paymentId } = await pendingPurchase();
    const end = validBeforeOf(signed.payload);
    rpc.head = { timestamp: end + 60 };
    await at(end + grace() - 5, async () => {
      await reconcilePass(0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'pending' });
    });
    await at(end + grace() + 5, async () => {
      await reconcilePass(0);
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'released' });
    });
  });

  it('used after all by another transaction, past its window: completed once with that transaction', async () => {
    const { item, buyer, signed, retry, paymentId, transaction } = await pendingPurchase();
    // the facilitator's transaction was replaced: another one used the authorization
    const replacement = `0x${'f1'.repeat(32)}`;
    expect(replacement).not.toBe(transaction);
    rpc.mine(buyer.address, signed.nonce, replacement);
    await at(validBeforeOf(signed.payload) + grace() + 60, async () => {
      expect((await reconcilePass(0)).completed).toBeGreaterThanOrEqual(1);
    });
    await expectPlacedOnce(item.itemId, paymentId);
    expect(await listed(paymentId)).toBe(false);
    const [order] = await orderOf(item.itemId);
    expect(order!.transaction).toBe(replacement);
    // the buyer's retry with the same id answers that order; nothing settled again
    const before = settles();
    const res = await retry();
    expect(res.json()).toMatchObject({ order_id: order!.id });
    expect(settles()).toBe(before);
    expect((await reconcilePass(0)).completed).toBe(0);
    expect(await orderOf(item.itemId)).toHaveLength(1);
  });

  it('reconciler passes racing the buyer retrying with the same id: one order, whichever decides', async () => {
    // mined late: the passes complete it while the retry asks
    const mined = await pendingPurchase();
    rpc.mine(mined.buyer.address, mined.signed.nonce, mined.transaction);
    const [, , retried] = await Promise.all([reconcilePass(0), reconcilePass(0), mined.retry()]);
    expect([200, 409]).toContain(retried.statusCode);
    await expectPlacedOnce(mined.item.itemId, mined.paymentId);
    const [order] = await orderOf(mined.item.itemId);
    expect((await mined.retry()).json()).toMatchObject({ order_id: order!.id });
    // dropped, its window closed: the passes release it while the retry runs anew
    const dropped = await pendingPurchase();
    await at(validBeforeOf(dropped.signed.payload) + grace() + 60, async () => {
      const before = settles();
      const [c, d, first] = await Promise.all([
        reconcilePass(0),
        reconcilePass(0),
        dropped.retry(),
      ]);
      expect(c.released + d.released).toBeGreaterThanOrEqual(1);
      // asked before the release landed, the retry answers pending: the next one buys
      const bought = first.statusCode === 200 ? first : await dropped.retry();
      expect(bought.statusCode).toBe(200);
      expect(settles()).toBe(before + 1);
      const [placed] = await orderOf(dropped.item.itemId);
      expect(bought.json()).toMatchObject({ order_id: placed!.id });
    });
    expect(await orderOf(dropped.item.itemId)).toHaveLength(1);
    expect(await recorded(dropped.item.itemId, dropped.paymentId)).toMatchObject({
      status: 'released',
    });
  });

  /**
   * Makes the payment's claim, and the last question about it, older than RECONCILE_STALE_SECONDS
   * (the retry then asks).
   */
  const olderThanStale = (paymentId: string) => t.runtime.deps.sql`
    update x402_payments
    set updated_at = now() - make_interval(secs => ${t.runtime.deps.config.RECONCILE_STALE_SECONDS + 60}),
        rechecked_at = case when rechecked_at is null then null
          else now() - make_interval(secs => ${t.runtime.deps.config.RECONCILE_STALE_SECONDS + 60}) end
    where id = ${paymentId}`;
  /** Chain reads about this transaction (its receipt is read first on every recheck). */
  const reads = (transaction: string) =>
    rpc.receiptsAsked.filter((h) => h === transaction.toLowerCase()).length;

  it('retried while pending: a young claim answers 409 unasked; an old one asks the chain once per stale period, and still open, answers the same 409', async () => {
    const { item, signed, acquire, paymentId, transaction } = await pendingPurchase();
    const before = reads(transaction);
    const heads = rpc.headsAsked;
    const young = await acquire(signed.header);
    expect(young.statusCode).toBe(409);
    expect(young.json()).toMatchObject({ error: 'payment_settlement_pending', transaction });
    expect(reads(transaction)).toBe(before);
    const pendingAgain = async (asked: number) => {
      const old = await acquire(signed.header);
      expect(old.statusCode).toBe(409);
      expect(old.json()).toMatchObject({ error: 'payment_settlement_pending', transaction });
      // one recheck: one head block, its receipt, the token's record at that head
      expect(reads(transaction)).toBe(before + asked);
      expect(rpc.headsAsked).toBe(heads + asked);
    };
    await olderThanStale(paymentId);
    await pendingAgain(1);
    // retries right after it are answered from the record: a stream of retries is not a stream
    // of chain reads (the answer cannot have changed much sooner than the reconciler would ask)
    await pendingAgain(1);
    await pendingAgain(1);
    await olderThanStale(paymentId);
    await pendingAgain(2);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 0, status: 'pending' });
    expect(await listed(paymentId)).toBe(true);
  });

  it('retried while pending and old, mined meanwhile: the retry asks once and gets the order, placed once', async () => {
    const { item, buyer, signed, acquire, retry, paymentId, transaction } = await pendingPurchase();
    rpc.mine(buyer.address, signed.nonce, transaction);
    await olderThanStale(paymentId);
    const before = { reads: reads(transaction), settles: settles() };
    const res = await acquire(signed.header);
    expect(res.statusCode).toBe(200);
    expect(reads(transaction)).toBe(before.reads + 1);
    const [order] = await orderOf(item.itemId);
    expect(order!.transaction).toBe(transaction);
    expect(res.json()).toMatchObject({ order_id: order!.id });
    // answered from the record from now on: the same request, or the same id signed afresh
    expect((await acquire(signed.header)).json()).toMatchObject({ order_id: order!.id });
    expect((await retry()).json()).toMatchObject({ order_id: order!.id });
    expect(reads(transaction)).toBe(before.reads + 1);
    expect(settles()).toBe(before.settles);
    await expectPlacedOnce(item.itemId, paymentId);
    expect(await listed(paymentId)).toBe(false);
  });

  it('retried while pending and old, dropped and past the grace: released by the retry, which runs anew once', async () => {
    const { item, retry, paymentId, transaction } = await pendingPurchase();
    const other = await pendingPurchase();
    await olderThanStale(paymentId);
    await olderThanStale(other.paymentId);
    await at(validBeforeOf(other.signed.payload) + grace() + 60, async () => {
      // the same id signed afresh: the dropped claim is released, this payment buys once
      const before = { reads: reads(transaction), settles: settles() };
      const bought = await retry();
      expect(bought.statusCode).toBe(200);
      expect(reads(transaction)).toBe(before.reads + 1);
      expect(settles()).toBe(before.settles + 1);
      const [order] = await orderOf(item.itemId);
      expect(bought.json()).toMatchObject({ order_id: order!.id });
      expect(await recorded(item.itemId, paymentId)).toMatchObject({ status: 'released' });
      expect(await listed(paymentId)).toBe(false);
      // the dropped authorization itself, retried: released too, and expired, so nothing settles
      const o = { reads: reads(other.transaction), settles: settles() };
      const stale = await other.acquire(other.signed.header);
      expect(stale.statusCode).toBe(402);
      expect(stale.json()).toMatchObject({
        error: 'payment_verification_failed',
        reason: 'invalid_exact_evm_payload_authorization_valid_before',
      });
      expect(reads(other.transaction)).toBe(o.reads + 1);
      expect(settles()).toBe(o.settles);
      expect(await recorded(other.item.itemId, other.paymentId)).toMatchObject({
        orders: 0,
        status: 'released',
      });
      expect(await listed(other.paymentId)).toBe(false);
    });
    expect(await orderOf(item.itemId)).toHaveLength(1);
  });

  /** Payments completed, released, and failures made final, so far (what passes report). */
  const decided = async () => {
    const [r] = await t.runtime.deps.sql<{ completed: number; released: number; failed: number }[]>`
      select count(*) filter (where status = 'completed')::int as completed,
             count(*) filter (where status = 'released')::int as released,
             count(*) filter (where failure_final_at is not null)::int as failed
      from x402_payments`;
    return r!;
  };

  it('two reconciler passes at once over one mined payment: completed counted once in total', async () => {
    const pending = await pendingPurchase();
    rpc.mine(pending.buyer.address, pending.signed.nonce, pending.transaction);
    const failed = await failedPurchase();
    rpc.mine(failed.buyer.address, failed.signed.nonce, `0x${'c2'.repeat(32)}`);
    const before = await decided();
    const [a, b] = await Promise.all([reconcilePass(0), reconcilePass(0)]);
    // the console's "Reconciled: N completed" and the report say what happened (these two,
    // and any payment an earlier test left to be completed), each payment once
    const after = await decided();
    expect(a.completed + b.completed).toBe(after.completed - before.completed);
    expect(after.completed - before.completed).toBeGreaterThanOrEqual(2);
    expect(await recorded(pending.item.itemId, pending.paymentId)).toMatchObject({
      orders: 1,
      status: 'completed',
    });
    expect(await recorded(failed.item.itemId, failed.paymentId)).toMatchObject({
      orders: 1,
      status: 'completed',
    });
  });

  it('two reconciler passes at once over a dropped claim and a final failure: each counted once', async () => {
    const dropped = await pendingPurchase();
    const failed = await failedPurchase();
    await at(validBeforeOf(failed.signed.payload) + grace() + 60, async () => {
      const before = await decided();
      const [a, b] = await Promise.all([reconcilePass(0), reconcilePass(0)]);
      // these two, and any payment an earlier test left open whose window closed: each once
      const after = await decided();
      expect(a.released + b.released).toBe(after.released - before.released);
      expect(a.failed + b.failed).toBe(after.failed - before.failed);
      expect(a.completed + b.completed).toBe(after.completed - before.completed);
    });
    expect(await recorded(dropped.item.itemId, dropped.paymentId)).toMatchObject({
      status: 'released',
    });
    expect(await recorded(failed.item.itemId, failed.paymentId)).toMatchObject({
      status: 'failed',
    });
  });
});

/**
 * A facilitator may send the hash of the transaction it broadcast with a FAILURE answer. It is kept
 * on the payment: operators see it (`payments:unresolved`, the console's payments page), and the
 * recheck asks for its receipt before the token's record of the nonce.
 */
describe('a settlement failure that names its transaction', () => {
  it("is kept and shown, and its receipt decides the recheck only with the token's event: mined, one order with it", async () => {
    const { item, buyer, signed, paymentId, transaction } =
      await failedPurchase('settle_failed_broadcast');
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
    // the operator command and the console page show it
    const command = await unresolvedPayments(t.runtime.deps.payments.store, 0);
    expect(command.find((p) => p.paymentId === paymentId)?.transaction).toBe(transaction);
    const page = await unresolvedSettlements(t.runtime.deps.sql);
    expect(page.find((p) => p.payment_id === paymentId)?.transaction).toBe(transaction);
    // a success receipt for that hash whose logs do not use this authorization (a wrong or
    // foreign hash): no order for it; the token says the nonce is unused, so still undecided
    rpc.receipts.set(transaction!, 'success');
    await reconcilePass(0);
    expect(rpc.receiptsAsked).toContain(transaction);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 0, status: 'failed' });
    expect(await listed(paymentId)).toBe(true);
    // its transaction is mined: its receipt holds the token's AuthorizationUsed(payer, nonce)
    rpc.mine(buyer.address, signed.nonce, transaction!);
    expect((await reconcilePass(0)).completed).toBe(1);
    await expectPlacedOnce(item.itemId, paymentId);
    const [order] = await t.runtime.deps.sql<{ transaction: string }[]>`
      select transaction from orders where item_id = ${item.itemId}`;
    expect(order!.transaction).toBe(transaction);
  });

  it("used, but neither its receipt nor the token's events name the transaction: one order, recording no hash rather than the one that failed", async () => {
    const { item, buyer, signed, paymentId, transaction } =
      await failedPurchase('settle_failed_broadcast');
    // the named transaction reverted; the nonce was used by one whose event is out of reach
    rpc.receipts.set(transaction!, 'reverted');
    rpc.usedAuthorizations.add(`${buyer.address.toLowerCase()}:${signed.nonce.toLowerCase()}`);
    await reconcilePass(0);
    await expectPlacedOnce(item.itemId, paymentId);
    const [order] = await t.runtime.deps.sql<{ transaction: string }[]>`
      select transaction from orders where item_id = ${item.itemId}`;
    expect(order!.transaction).toBe('');
  });

  it('never mined (no receipt, nonce unused) and its window closed: final', async () => {
    const { item, signed, paymentId, transaction } =
      await failedPurchase('settle_failed_broadcast');
    await at(validBeforeOf(signed.payload) + grace() + 60, async () => {
      expect((await reconcilePass(0)).failed).toBeGreaterThanOrEqual(1);
    });
    expect(rpc.receiptsAsked).toContain(transaction);
    expect(await recorded(item.itemId, paymentId)).toMatchObject({ orders: 0, status: 'failed' });
    expect(await listed(paymentId)).toBe(false);
  });
});
