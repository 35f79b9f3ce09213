import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorOptions } from '../../src/domain/payments/processor.js';
import { reconcileNow } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A claim whose request is still running is never resolved under it, on either database: on the
 * embedded one, only claims written before this process opened it are resolved at once
 * (test/e2e/crash-recovery.test.ts); this process's own young claim is waited for, as on Postgres,
 * until RECONCILE_STALE_SECONDS. Resolving it from the ledger while its settlement is under way
 * would release it, and the retry would claim and settle the authorization itself.
 */
let t: TestContext;
let local: LocalFacilitator;
beforeAll(async () => {
  // the deployment's stale period (30 s), so that nothing in this test is stale
  t = await startTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

describe('a young claim of a request still running', () => {
  it('is waited for by the same signed request and left alone by the reconciler: one settlement, one order', async () => {
    await expectWaitedFor();
  });

  it('is waited for even when the clock dates it before this process opened the database (a host clock stepped back)', async () => {
    // The embedded database's open instant (`orphanedBefore`) moved past every claim, as a clock
    // stepped back after the start would date new claims: a claim this process's request holds is
    // still its own (on Postgres, the same processor check with the instant set).
    const opts = (t.runtime.deps.payments as unknown as { opts: ProcessorOptions }).opts;
    const opened = opts.orphanedBefore;
    opts.orphanedBefore = new Date(Date.now() + 3600_000); // an hour stepped back
    try {
      await expectWaitedFor();
    } finally {
      if (opened) opts.orphanedBefore = opened;
      else delete opts.orphanedBefore;
    }
  });
});

/**
 * A purchase held after its claim, before it settles; the same signed request sent meanwhile
 * waits, a reconciler pass changes nothing; let go, both answer the one order.
 */
async function expectWaitedFor() {
  const { payments, sql } = t.runtime.deps;
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const required = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, required, required.accepts[0]!, {
    paymentId: `pay_${randomUUID()}`,
  });
  const send = () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { policy_accepted: true, license_accepted: true },
    });

  // The first request claims the authorization and is held before it settles.
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => (letGo = resolve));
  let atSettle!: () => void;
  const claimed = new Promise<void>((resolve) => (atSettle = resolve));
  const { facilitator } = payments;
  const settle = facilitator.settleChecked.bind(facilitator);
  let holds = 1;
  facilitator.settleChecked = async (payload, requirement) => {
    if (holds-- > 0) {
      atSettle();
      await held;
    }
    return settle(payload, requirement);
  };
  payments.testHooks.afterSettle = async () => {}; // the stepwise path: claim, then settle
  try {
    const first = send();
    await claimed;
    let retryAnswered = false;
    const retry = send().finally(() => (retryAnswered = true));
    await sleep(1500);
    expect(retryAnswered).toBe(false); // it waits for the first one's outcome
    expect(await reconcileNow(t.runtime.deps)).toMatchObject({ completed: 0, released: 0 });
    const status = async () =>
      (
        await sql<{ status: string }[]>`
            select status from x402_payments where nonce = ${signed.nonce}`
      )[0]!.status;
    expect(await status()).toBe('settling');

    letGo();
    const [a, b] = await Promise.all([first, retry]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(b.json().order_id).toBe(a.json().order_id);
    expect(await status()).toBe('completed');
    const [money] = await sql<{ orders: number; transfers: number }[]>`
        select (select count(*)::int from orders where item_id = ${item.itemId}) as orders,
               (select count(*)::int from dev_ledger_transfers where nonce = ${signed.nonce}) as transfers`;
    expect(money).toEqual({ orders: 1, transfers: 1 });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(9_500_000);
  } finally {
    facilitator.settleChecked = settle;
    payments.testHooks = {};
  }
}
