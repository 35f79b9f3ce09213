import type { Logger } from 'pino';
import type { Sql } from '../../db/index.js';
import { CHAINS, chainOfNetwork, NETWORK_OF, type Chain } from '../../wire/chains.js';
import { toUsdc } from '../../wire/money.js';
import type { PaymentProcessor } from '../payments/processor.js';
import { reconcilePayments, type ReconcileReport } from '../payments/reconciler.js';
import { recordAudit } from './audit.js';
import { unresolvedPayment } from '../payments/store.js';

/**
 * A settlement whose outcome is not recorded yet, as the payments page shows it: open claims, and
 * failures at settlement whose transfer may still be mined (as `npm run payments:unresolved`).
 */
export interface UnresolvedSettlement {
  payment_id: string;
  operation: string;
  status: string;
  chain: Chain | string;
  payer: string;
  amount_usdc: number;
  transaction: string | null;
  age_seconds: number;
  /** When the row last changed: its claim, its settle answer or the reconciler's last outcome. */
  last_seen: string;
  /** What the facilitator or the chain last said (error code and reason), if anything. */
  last_outcome: string | null;
}

export async function unresolvedSettlements(
  sql: Sql,
  limit = 200,
): Promise<UnresolvedSettlement[]> {
  const rows = await sql<
    {
      id: string;
      operation: string;
      status: string;
      network: string;
      payer: string;
      amountMicro: number;
      transaction: string | null;
      age: number;
      updatedAt: Date;
      errorCode: string | null;
      errorReason: string | null;
    }[]
  >`
    select id, operation, status, network, payer, amount_micro, transaction,
           extract(epoch from now() - created_at)::int as age, updated_at, error_code, error_reason
    from x402_payments
    where ${unresolvedPayment(sql)}
    order by created_at limit ${limit}`;
  return rows.map((r) => ({
    payment_id: r.id,
    operation: r.operation,
    status: r.status,
    chain: chainOfNetwork(r.network) ?? r.network,
    payer: r.payer,
    amount_usdc: toUsdc(Number(r.amountMicro)),
    transaction: r.transaction,
    age_seconds: r.age,
    last_seen: r.updatedAt.toISOString(),
    last_outcome:
      [r.errorCode, r.errorReason].filter((s): s is string => Boolean(s)).join(': ') || null,
  }));
}

/** Per chain: settlements that failed lately, payouts made, and payouts waiting or stuck. */
export interface ChainPayoutState {
  chain: Chain;
  failed_settlements_24h: number;
  payouts_24h: number;
  last_payout_at: string | null;
  /** Payout addresses whose contract is not deployed yet (their sales wait for it). */
  awaiting_deployment: number;
  /** Payout addresses a worker is forwarding right now (lease held). */
  in_flight: number;
  /** Leases past their end that were never released: a payout worker died mid-payout. */
  stale_leases: number;
}

export async function payoutStates(sql: Sql): Promise<ChainPayoutState[]> {
  const out: ChainPayoutState[] = [];
  for (const chain of CHAINS) {
    const [r] = await sql<
      {
        failed: number;
        payouts: number;
        lastPayout: Date | null;
        awaiting: number;
        inFlight: number;
        stale: number;
      }[]
    >`
      select
        (select count(*)::int from x402_payments p
          where p.status = 'failed' and p.updated_at > now() - interval '24 hours'
            and p.network = ${NETWORK_OF[chain]}) as failed,
        (select count(*)::int from payouts where chain = ${chain}
          and paid_at > now() - interval '24 hours') as payouts,
        (select max(paid_at) from payouts where chain = ${chain}) as last_payout,
        (select count(*)::int from payout_addresses where chain = ${chain}
          and deployed_at is null) as awaiting,
        (select count(*)::int from payout_leases where chain = ${chain}
          and leased_until > now()) as in_flight,
        (select count(*)::int from payout_leases where chain = ${chain}
          and leased_until <= now()) as stale`;
    out.push({
      chain,
      failed_settlements_24h: r!.failed,
      payouts_24h: r!.payouts,
      last_payout_at: r!.lastPayout ? r!.lastPayout.toISOString() : null,
      awaiting_deployment: r!.awaiting,
      in_flight: r!.inFlight,
      stale_leases: r!.stale,
    });
  }
  return out;
}

/**
 * "Reconcile now": one reconciliation pass at once instead of at the next tick (the same pass
 * the periodic task runs: nothing is guessed, each settlement is resolved from the facilitator's
 * or the chain's record or stays open), recorded in the audit trail with its report.
 */
export async function reconcileNowAudited(
  deps: {
    sql: Sql;
    payments: PaymentProcessor;
    logger: Logger;
    config: {
      RECONCILE_STALE_SECONDS: number;
      RECONCILE_ALERT_AFTER_SECONDS: number;
      RECONCILE_CHAIN_WARN_SECONDS: number;
      X402_PAYMENT_ID_RETENTION_SECONDS: number;
    };
  },
  actor: string,
): Promise<ReconcileReport> {
  const report = await reconcilePayments(deps.payments, {
    staleSeconds: deps.config.RECONCILE_STALE_SECONDS,
    alertAfterSeconds: deps.config.RECONCILE_ALERT_AFTER_SECONDS,
    chainWarnSeconds: deps.config.RECONCILE_CHAIN_WARN_SECONDS,
    logger: deps.logger,
    paymentIdRetentionSeconds: deps.config.X402_PAYMENT_ID_RETENTION_SECONDS,
  });
  await recordAudit(deps.sql, { actor, action: 'payments.reconcile', detail: report });
  return report;
}
