import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorOptions } from '../../src/domain/payments/processor.js';
import type { PaymentStore } from '../../src/domain/payments/store.js';
import { reconcileNow } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A claim is released or resolved only as it was read, and never under a request of this process
 * that holds it (issue 25, review s58). A recheck decides on the row it read; between its read
 * and its act a buyer's retry may release that claim, take it again and be settling it. Released
 * then, the running request completes a released row whose payment-identifier id is gone, and the
 * same id signed afresh is charged a second time. Every case ends with the same id signed afresh:
 * it must be answered with the one order, nothing charged again.
 */
let t: TestContext;
let local: LocalFacilitator;
beforeAll(async () => {
  t = await startTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

/** The store's first claim lands, then its request dies (a process killed after the claim). */
function claimThenDieOnce(store: PaymentStore): PaymentStore['claim'] {
  const claim = store.claim.bind(store);
  let dies = 1;
  store.claim = async (input) => {
    const row = await claim(input);
    if (dies-- > 0) throw new Error('killed after the claim');
    return row;
  };
  return claim;
}

const processorOpts = () => (t.runtime.deps.payments as unknown as { opts: ProcessorOptions }).opts;

describe('a recheck acts only on the claim as it read it', () => {
  it('a pass that read an abandoned claim, which a retry then released and took again, leaves the running claim alone', async () => {
    const { payments, sql } = t.runtime.deps;
    const { store } = payments;
    const p = await purchase();
    const first = await p.sign();
    const send = p.sender(first.header);
    // a process that claimed, then died before it settled (nothing moved)
    const claim = claimThenDieOnce(store);
    const hold = holdSettle();
    try {
      expect((await send()).statusCode).toBe(500);
      // its claim is old: stale on both databases (on the embedded one also before the open)
      await sql`
        update x402_payments set updated_at = now() - interval '1 hour' where nonce = ${first.nonce}`;
      // a reconciler pass (in this process or another) reads its batch ...
      const batch = await store.unfinished(30, 100);
      const read = batch.find((r) => r.nonce === first.nonce)!;
      expect(read.status).toBe('settling');
      // ... meanwhile the buyer's retry releases it (nothing moved), claims it again and settles
      const retry = send();
      await hold.atSettle;
      expect(await statusOf(first.nonce)).toBe('settling');
      // ... and the pass reaches the row it read: written since, it is not the claim it read
      expect(await payments.settleAbandoned(read)).toBe('concurrent');
      expect(await statusOf(first.nonce)).toBe('settling');
      hold.letGo();
      const a = await retry;
      expect(a.statusCode).toBe(200);
      await expectOneOrder(p, a.json().order_id as string);
    } finally {
      store.claim = claim;
      hold.restore();
    }
  });

  it('a pass that read an abandoned claim, which a retry then took again and settled, leaves its completion to that request', async () => {
    // The read row's operation and context are the first request's; the claim taken again is the
    // retry's (a released authorization may be used for another request), so only it completes.
    const { payments, sql } = t.runtime.deps;
    const { store } = payments;
    const p = await purchase();
    const first = await p.sign();
    const send = p.sender(first.header);
    const claim = claimThenDieOnce(store);
    // the retry is held after its settlement moved the money, before it writes anything
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let reached!: () => void;
    const settled = new Promise<void>((r) => (reached = r));
    payments.testHooks.afterSettle = async () => {
      reached();
      await held;
    };
    try {
      expect((await send()).statusCode).toBe(500);
      await sql`
        update x402_payments set updated_at = now() - interval '1 hour' where nonce = ${first.nonce}`;
      const read = (await store.unfinished(30, 100)).find((r) => r.nonce === first.nonce)!;
      const retry = send();
      await settled;
      // the ledger says mined; the row is no longer the one the pass read
      expect(await payments.settleAbandoned(read)).toBe('concurrent');
      expect(await statusOf(first.nonce)).toBe('settling');
      letGo();
      const a = await retry;
      expect(a.statusCode).toBe(200);
      const [row] = await sql<{ answered: boolean }[]>`
        select answered_at is not null as answered from x402_payments where nonce = ${first.nonce}`;
      expect(row!.answered).toBe(true); // completed by the request that paid, which answered it
      await expectOneOrder(p, a.json().order_id as string);
    } finally {
      store.claim = claim;
      payments.testHooks = {};
    }
  });

  it('a claim released under its running request and completed by it keeps its payment id', async () => {
    // The second safeguard: however a running claim came to be released, the request whose
    // settlement moved the money completes it and puts its payment id back.
    const { payments, sql } = t.runtime.deps;
    const p = await purchase();
    const signed = await p.sign();
    const hold = holdSettle();
    try {
      const first = p.sender(signed.header)();
      await hold.atSettle;
      const [row] = await sql<{ id: string }[]>`
        select id from x402_payments where nonce = ${signed.nonce}`;
      expect(await payments.store.release(row!.id)).toBe(true);
      hold.letGo();
      const a = await first;
      expect(a.statusCode).toBe(200);
      await expectOneOrder(p, a.json().order_id as string);
    } finally {
      hold.restore();
    }
  });
});

describe("a claim this process's request holds is never resolved under it", () => {
  it('a pass that runs as the claim statement returns, before its request goes on, leaves the claim to it (a clock stepped back)', async () => {
    const { payments } = t.runtime.deps;
    const { store } = payments;
    const opts = processorOpts();
    const opened = opts.orphanedBefore;
    // every claim dated before the open: an hour stepped back after the start
    opts.orphanedBefore = new Date(Date.now() + 3600_000);
    const p = await purchase();
    const signed = await p.sign();
    const claim = store.claim.bind(store);
    let pass: Awaited<ReturnType<typeof reconcileNow>> | undefined;
    store.claim = async (input) => {
      const claimed = await claim(input); // the claim is written ...
      // ... and the scheduler's pass runs before the request's next step
      pass ??= await reconcileNow(t.runtime.deps);
      return claimed;
    };
    const hold = holdSettle();
    try {
      const first = p.sender(signed.header)();
      await hold.atSettle;
      expect(pass).toMatchObject({ completed: 0, released: 0 });
      expect(await statusOf(signed.nonce)).toBe('settling');
      hold.letGo();
      const a = await first;
      expect(a.statusCode).toBe(200);
      await expectOneOrder(p, a.json().order_id as string);
    } finally {
      store.claim = claim;
      hold.restore();
      if (opened) opts.orphanedBefore = opened;
      else delete opts.orphanedBefore;
    }
  });

  it('a retry waits for a held claim older than the stale period (a settlement slower than it) and settles nothing', async () => {
    const { sql } = t.runtime.deps;
    const opts = processorOpts();
    const wait = opts.duplicateWaitMs;
    opts.duplicateWaitMs = 1000; // the retry's wait for the outcome, shortened
    const p = await purchase();
    const signed = await p.sign();
    const send = p.sender(signed.header);
    const hold = holdSettle();
    try {
      const first = send();
      await hold.atSettle;
      // the settlement outlasts the stale period (or the clock stepped forward)
      await sql`
        update x402_payments set updated_at = now() - interval '1 hour' where nonce = ${signed.nonce}`;
      const retry = await send();
      expect(retry.statusCode).toBe(409);
      expect(retry.json()).toMatchObject({ error: 'payment_settlement_pending' });
      expect(hold.settles()).toBe(1);
      expect(await reconcileNow(t.runtime.deps)).toMatchObject({ completed: 0, released: 0 });
      expect(await statusOf(signed.nonce)).toBe('settling');
      hold.letGo();
      const a = await first;
      expect(a.statusCode).toBe(200);
      expect(hold.settles()).toBe(1);
      await expectOneOrder(p, a.json().order_id as string);
    } finally {
      hold.restore();
      if (wait === undefined) delete opts.duplicateWaitMs;
      else opts.duplicateWaitMs = wait;
    }
  });
});

describe('the hold of a request', () => {
  it('is let go however the request ends: completed in one statement, or stepwise', async () => {
    const { payments } = t.runtime.deps;
    for (const stepwise of [false, true]) {
      const p = await purchase();
      const signed = await p.sign();
      if (stepwise) payments.testHooks.afterSettle = async () => {};
      try {
        expect((await p.sender(signed.header)()).statusCode).toBe(200);
      } finally {
        payments.testHooks = {};
      }
      expect(payments.holds({ payer: p.buyer.address, nonce: signed.nonce })).toBe(false);
    }
  });
});

/** A purchase of a new item by a new buyer, signed with one payment id (stepwise: claim, settle). */
async function purchase() {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const paymentId = `pay_${randomUUID()}`;
  const sign = () => signPayment(buyer, required, required.accepts[0]!, { paymentId });
  const sender = (header: string) => () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
  return { item, buyer, sign, sender };
}

/**
 * Holds the first facilitator settle until `letGo` (`atSettle`: it was reached), on the stepwise
 * path (claim, then settle; a released claim taken again always goes this way).
 */
function holdSettle() {
  const { payments } = t.runtime.deps;
  const { facilitator } = payments;
  const settle = facilitator.settleChecked.bind(facilitator);
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  let reached!: () => void;
  const atSettle = new Promise<void>((r) => (reached = r));
  let calls = 0;
  facilitator.settleChecked = async (payload, requirement) => {
    if (++calls === 1) {
      reached();
      await held;
    }
    return settle(payload, requirement);
  };
  payments.testHooks.afterSettle = async () => {};
  return {
    letGo,
    atSettle,
    settles: () => calls,
    restore: () => {
      facilitator.settleChecked = settle;
      payments.testHooks = {};
    },
  };
}

async function statusOf(nonce: string): Promise<string> {
  const [row] = await t.runtime.deps.sql<{ status: string }[]>`
    select status from x402_payments where nonce = ${nonce}`;
  return row!.status;
}

/**
 * One order and one transfer; the same payment id signed afresh (the buyer's client retrying)
 * answers that order and charges nothing.
 */
async function expectOneOrder(p: Awaited<ReturnType<typeof purchase>>, orderId: string) {
  const again = await p.sender((await p.sign()).header)();
  expect(again.statusCode).toBe(200);
  expect(again.json().order_id).toBe(orderId);
  const [money] = await t.runtime.deps.sql<{ orders: number; transfers: number }[]>`
    select (select count(*)::int from orders where item_id = ${p.item.itemId}) as orders,
           (select count(*)::int from dev_ledger_transfers
            where lower(payer) = ${p.buyer.address.toLowerCase()}) as transfers`;
  expect(money).toEqual({ orders: 1, transfers: 1 });
  expect(await local.balanceOf('eip155:8453', p.buyer.address)).toBe(9_500_000);
}
