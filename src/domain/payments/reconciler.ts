import type { Logger } from 'pino';
import { statementCancelled, unreachableQuery } from '../../db/unreachable.js';
import type { PaymentProcessor } from './processor.js';
import type { RecheckOutcome } from './recheck.js';
import type { PaymentRow, PaymentStore } from './store.js';

export interface ReconcileReport {
  completed: number;
  released: number;
  /** Failures at settlement found final this pass (window closed, authorization unused). */
  failed: number;
  unresolved: number;
  prunedIdentityNonces: number;
  prunedPaymentIdentifiers: number;
}

export interface ReconcilerOptions {
  /** Age after which a `settling` claim counts as abandoned by a dead request. */
  staleSeconds: number;
  /** Age after which an unresolved settlement is an operator's problem (logged at error level). */
  alertAfterSeconds: number;
  logger: Logger;
  limit?: number;
  /** How long a payment-identifier id outlives its payment's window (X402_PAYMENT_ID_RETENTION_SECONDS). */
  paymentIdRetentionSeconds: number;
  /**
   * At most one warning per unreadable chain cause (network, RPC method) this often
   * (RECONCILE_CHAIN_WARN_SECONDS); default 600.
   */
  chainWarnSeconds?: number;
}

/**
 * One reconciliation pass (a periodic task): every claim whose request died or whose settlement
 * was left pending is resolved from the facilitator's or the chain's record, completed or
 * released; a failure at settlement not yet known final is completed if its transfer was mined
 * after all, or made final once its window closed unused (`SettlementRecheck.settleFailed`).
 * At most `limit` (100) payments per pass, least recently looked at first; one that stays
 * unresolved records when it was asked and goes behind the others. A settlement still
 * unresolved after `alertAfterSeconds` is logged at error level on every pass (money may have moved
 * without an order), and listed by `unresolvedPayments` for the operator command.
 */
export async function reconcilePayments(
  processor: PaymentProcessor,
  opts: ReconcilerOptions,
): Promise<ReconcileReport> {
  const { store } = processor;
  const report: ReconcileReport = {
    completed: 0,
    released: 0,
    failed: 0,
    unresolved: 0,
    prunedIdentityNonces: 0,
    prunedPaymentIdentifiers: 0,
  };
  const rows = await store.unfinished(opts.staleSeconds, opts.limit ?? 100, {
    orphanedBefore: processor.orphanedBefore,
  });
  for (const row of rows) {
    // A claim a request of this process holds now (asked per row, not once per pass: a claim
    // statement may land while the pass runs) is that request's to finish, whatever its age.
    if (processor.holds(row)) continue;
    let outcome: RecheckOutcome;
    try {
      outcome = await processor.settleAbandoned(row);
    } catch (err) {
      // The database out of reach (a Postgres restart or failover): every other payment of the
      // pass would meet it too, each an error with its stack. The pass ends here, nothing changed,
      // and its caller says so once: the scheduler in one warn line with the reason
      // (src/jobs/scheduler.ts), the console's "reconcile now" as 503 database_unavailable.
      if (unreachableQuery(err)) throw err;
      const cancelled = statementCancelled(err);
      if (cancelled) {
        // a lock held elsewhere cut the statement by its timeout (src/db/timeouts.ts): nothing
        // is broken and the payment stays as it was, so the next pass tries again; a warn line
        // naming the timeout, not an error with a stack on every pass while the lock is held
        opts.logger.warn(
          { paymentId: row.id, timeout: cancelled.timeout, reason: cancelled.reason },
          `reconciling a payment was cancelled by ${cancelled.timeout}`,
        );
      } else opts.logger.error({ err, paymentId: row.id }, 'reconciliation failed');
      outcome = 'unresolved';
      // one that keeps failing waits its turn too, behind the others (whatever it was written
      // since: a completion that threw may have recorded its settlement, a new version)
      await store.markRechecked(row.id).catch((e: unknown) => {
        opts.logger.warn({ err: e, paymentId: row.id }, 'recording a recheck failed');
      });
    }
    // counted by the pass whose statement made the transition (a race is not counted twice)
    if (outcome !== 'concurrent') report[outcome]++;
    if (outcome === 'unresolved' && ageSeconds(row) >= opts.alertAfterSeconds) {
      opts.logger.error(
        describeUnresolved(row),
        'settlement still unresolved: money may have moved without an order',
      );
    }
  }
  // why claims stay open when the chain cannot be read: one line per cause, not one per claim
  processor.chainReads.flush(opts.logger, opts.chainWarnSeconds ?? 600);
  report.prunedIdentityNonces = await store.pruneIdentityNonces();
  report.prunedPaymentIdentifiers = await store.prunePaymentIdentifiers(
    opts.paymentIdRetentionSeconds,
  );
  return report;
}

/** Settlements still open after `olderThanSeconds`, as an operator reads them. */
export async function unresolvedPayments(store: PaymentStore, olderThanSeconds: number) {
  return (await store.unresolved(olderThanSeconds)).map(describeUnresolved);
}

const ageSeconds = (row: PaymentRow) => Math.round((Date.now() - row.createdAt.getTime()) / 1000);

function describeUnresolved(row: PaymentRow) {
  return {
    paymentId: row.id,
    operation: row.operation,
    status: row.status,
    payer: row.payer,
    nonce: row.nonce,
    network: row.network,
    amountMicro: row.amountMicro,
    transaction: row.transaction,
    ageSeconds: ageSeconds(row),
    reason: row.errorReason,
  };
}
