/*
 * A settled claim (money moved, no order) whose completion keeps failing, as a reconciler pass
 * meets it (stop 58's second review): the compare-and-set on the row as read must not read "nothing
 * to record" as "someone else wrote it". Before the fix the recheck answered 'concurrent' for
 * ever: no error line, no alert, no `rechecked_at`, and the row first in every pass, so a hundred
 * of them stopped every other claim's recovery.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { piece, Pieces } from '../../src/db/pieces.js';
import { PaymentProcessor } from '../../src/domain/payments/processor.js';
import { reconcilePayments } from '../../src/domain/payments/reconciler.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { guardedPayment, newWallet } from '../helpers/wallets.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
});
afterAll(() => t?.close());

it('a settled claim whose completion keeps failing is reported by the reconciler (an error line, the alert) and goes behind the others', async () => {
  const deps = t.runtime.deps;
  const local = deps.facilitator as LocalFacilitator;
  const logged: string[] = [];
  const logger = {
    ...deps.logger,
    error: (_o: unknown, m?: string) => void logged.push(`error ${m}`),
    warn: (_o: unknown, m?: string) => void logged.push(`warn ${m}`),
    info: () => {},
    debug: () => {},
  } as unknown as typeof deps.logger;
  const processor = new PaymentProcessor(deps.payments.store, local, {
    retryAfterSeconds: 5,
    staleSeconds: 0,
    chainClockGraceSeconds: 120,
    logger,
  });
  processor.define('probe', (q) => ({
    pieces: Pieces.given('paid').then(
      piece(
        'broken',
        ['paid'],
        q`broken as (insert into x402_nonces (payer) select null from paid)`,
      ),
    ),
    result: q`jsonb_build_object('x', 1)`,
  }));
  const offer = {
    description: 'probe',
    options: [{ chain: 'base' as const, payTo: newWallet().address, amount: 10_000 }],
  };
  const { payment, nonce } = await guardedPayment(deps.x402, '/probe', offer);
  await expect(processor.run({ operation: 'probe', payment, context: {} })).rejects.toThrow();
  const before = await deps.sql<{ status: string; rechecked: boolean }[]>`
    select status, rechecked_at is not null as rechecked from x402_payments where nonce = ${nonce}`;
  expect(before[0]).toEqual({ status: 'settled', rechecked: false });
  logged.length = 0;
  const outcome = await processor
    .settleAbandoned((await deps.payments.store.find(payment.payer, nonce))!)
    .catch(() => 'threw');
  const report = await reconcilePayments(processor, {
    staleSeconds: 0,
    alertAfterSeconds: 0,
    logger,
    paymentIdRetentionSeconds: 86_400,
  });
  const after = await deps.sql<{ status: string; rechecked: boolean }[]>`
    select status, rechecked_at is not null as rechecked from x402_payments where nonce = ${nonce}`;
  // nobody else wrote the row: a recheck that cannot complete it says so, it is no 'concurrent'
  expect(outcome).toBe('threw');
  expect(report.unresolved).toBeGreaterThanOrEqual(1);
  expect(logged.some((l) => l.startsWith('error'))).toBe(true); // money moved, no order: said
  expect(after[0]!.rechecked).toBe(true); // and it goes behind the others
});

it('a settled claim whose completion keeps failing does not starve the others (a pass of 1 standing in for 100 such)', async () => {
  const deps = t.runtime.deps;
  const local = deps.facilitator as LocalFacilitator;
  const quiet = {
    ...deps.logger,
    error: () => {},
    warn: () => {},
    info: () => {},
    debug: () => {},
  } as unknown as typeof deps.logger;
  const processor = new PaymentProcessor(deps.payments.store, local, {
    retryAfterSeconds: 5,
    staleSeconds: 0,
    chainClockGraceSeconds: 120,
    logger: quiet,
  });
  const broken = new Set<string>();
  let all = true;
  processor.define('probe2', (q, ctx) => ({
    pieces: Pieces.given('paid').then(
      all || broken.has(ctx.paymentId as string)
        ? piece(
            'broken',
            ['paid'],
            q`broken as (insert into x402_nonces (payer) select null from paid)`,
          )
        : piece('ran', ['paid'], q`ran as (select 1 from paid)`),
    ),
    result: q`jsonb_build_object('x', 1)`,
  }));
  const offer = {
    description: 'probe2',
    options: [{ chain: 'base' as const, payTo: newWallet().address, amount: 10_000 }],
  };
  const settledOne = async () => {
    const { payment, nonce } = await guardedPayment(deps.x402, '/probe2', offer);
    await expect(processor.run({ operation: 'probe2', payment, context: {} })).rejects.toThrow();
    return (await deps.payments.store.find(payment.payer, nonce))!;
  };
  // every other stale claim out of the way for this test
  await deps.sql`update x402_payments set status = 'completed' where status in ('settling', 'settled', 'pending')`;
  const bad = await settledOne();
  const good = await settledOne();
  broken.add(bad.id);
  all = false;
  await deps.sql`update x402_payments set updated_at = now() - interval '2 hours' where id = ${bad.id}`;
  await deps.sql`update x402_payments set updated_at = now() - interval '1 hour' where id = ${good.id}`;
  for (let pass = 0; pass < 3; pass++)
    await reconcilePayments(processor, {
      staleSeconds: 0,
      alertAfterSeconds: 600,
      logger: quiet,
      paymentIdRetentionSeconds: 86_400,
      limit: 1,
    });
  const status = (await deps.payments.store.byId(good.id))!.status;
  expect(status).toBe('completed');
});
