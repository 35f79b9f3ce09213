import { setTimeout as sleep } from 'node:timers/promises';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { Logger } from 'pino';
import type postgres from 'postgres';
import type { Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  classifySettle,
  classifySettleError,
  type Facilitator,
  type SettleOutcome,
} from '../../x402/facilitator.js';
import type { VerifiedPayment } from '../../x402/guard.js';
import { chainOfNetwork, type Chain } from '../chains.js';

/**
 * Runs a paid operation at most once per EIP-3009 authorization (money safety, spec 7.1).
 *
 *   verify (facilitator) -> claim the nonce (Postgres unique keys) -> settle -> fulfil and store
 *   the result atomically (one statement for operations with an inline form, else `settled` then
 *   one transaction)
 *
 * With a facilitator whose settle re-checks everything verify checks atomically with the transfer
 * (`settleWithoutVerify`: the local one) the verify round trip is skipped: claim -> settle. A
 * rejection before anything moved (signature, nonce used, balance) releases the claim and answers
 * 402 payment_verification_failed with the facilitator's reason, exactly as a failed verify.
 * `claimCondition` lets the caller re-check its own preconditions inside the claim statement.
 *
 * - Two concurrent requests with one signed payment: one claims, the other waits for its outcome
 *   and answers the same result. A retry after success answers the stored result (same order).
 * - The process dying between settlement and fulfilment leaves the claim `settling`/`settled`; the
 *   reconciler (or the next retry of the same request) asks the facilitator or the chain and
 *   finishes the fulfilment, so a paid operation is never lost and never charged twice.
 * - Outcomes: 402 payment_verification_failed (+reason), 503 settlement_capacity (+retry_after,
 *   nonce released), 409 payment_settlement_pending (+transaction, network; reconciled later),
 *   402 payment_settlement_failed (+reason; terminal for this authorization).
 *
 * Contexts and results are JSON objects, stored verbatim (jsonb) and returned exactly as given.
 */
export type JsonObject = Record<string, unknown>;

export interface PaidContext<C extends JsonObject = JsonObject> {
  paymentId: string;
  operation: string;
  resource: string;
  payer: string;
  chain: Chain;
  network: string;
  asset: string;
  payTo: string;
  amountMicro: number;
  transaction: string;
  /** What the route stored at claim time. */
  context: C;
}

export type Fulfil<C extends JsonObject = JsonObject, R extends JsonObject = JsonObject> = (
  tx: postgres.TransactionSql,
  ctx: PaidContext<C>,
) => Promise<R>;

/** A SQL fragment (postgres.js tagged template) spliced into a larger statement. */
export type SqlFragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * Optional single-statement form of a fulfilment, used on the request path right after the
 * facilitator settled: its CTEs join the statement that moves the payment from its claim straight
 * to `completed` (recording the settlement and re-asserting the nonce), so the outcome and the
 * operation's writes commit together in one round trip instead of `settled` + a transaction.
 *
 * - `ready`: CTEs ending in one named `ready` that yields a row when the operation can run. They
 *   may write, but only when the CTE `eligible` (the claim, still open) has a row.
 * - `writes`: CTEs written as `a as (...), b as (...)` (no leading or trailing comma) that write
 *   only from rows of `done` (the completed payment) and `ready`.
 * - `result`: what `run` would return for the same context (plain JSON).
 *
 * Any statement that completes nothing (e.g. `ready` stays empty) or fails falls back to the
 * two-step path with the regular fulfilment, so the inline form may decline every unusual case.
 * The reconciler always uses the regular fulfilment.
 */
export type InlineFulfil<C extends JsonObject = JsonObject, R extends JsonObject = JsonObject> = (
  sql: postgres.Sql,
  ctx: PaidContext<C>,
) => { ready: SqlFragment; writes: SqlFragment; result: R };

export interface PaidResult<R extends JsonObject = JsonObject> {
  paymentId: string;
  result: R;
  settlement: SettleResponse;
  /** Value for the `PAYMENT-RESPONSE` header (base64 SettleResponse, @x402/core codec). */
  paymentResponseHeader: string;
  /** True when this answer repeats an earlier completion of the same authorization. */
  replayed: boolean;
}

export interface RunInput<C extends JsonObject> {
  operation: string;
  payment: VerifiedPayment;
  context: C;
  /**
   * Extra fields for the 409 payment_settlement_pending body, computed from the context stored with
   * the claim (e.g. the reserved order id, so the buyer can poll for it).
   */
  pendingDetails?: (context: C) => JsonObject;
  /**
   * A boolean SQL expression re-checked inside the claim statement (e.g. the item is still active
   * at this price): when false nothing is claimed, settled or written and `run` throws
   * `ClaimConditionFailed`, so the caller can answer from fresh data.
   */
  claimCondition?: SqlFragment;
}

/** `run` claimed nothing because the input's `claimCondition` no longer held. */
export class ClaimConditionFailed extends Error {
  constructor() {
    super('claim condition no longer holds');
  }
}

interface PaymentRow {
  id: string;
  operation: string;
  resource: string;
  payer: string;
  nonce: string;
  network: string;
  asset: string;
  payTo: string;
  amountMicro: number;
  validBefore: Date;
  status: 'settling' | 'pending' | 'settled' | 'completed' | 'failed' | 'released';
  transaction: string | null;
  contextJson: string;
  settlementJson: string | null;
  resultJson: string | null;
  errorCode: string | null;
  errorReason: string | null;
  updatedAt: Date;
}

const ROW = (sql: postgres.Sql | postgres.TransactionSql) => sql`
  id, operation, resource, payer, nonce, network, asset, pay_to, amount_micro, valid_before, status,
  transaction, context::text as context_json, settlement::text as settlement_json,
  result::text as result_json, error_code, error_reason, updated_at`;

export interface ProcessorOptions {
  retryAfterSeconds: number;
  /** Age after which a `settling` claim counts as abandoned by a dead request. */
  staleSeconds: number;
  logger: Logger;
  /** How long a duplicate request waits for the first one's outcome. */
  duplicateWaitMs?: number;
}

export interface ReconcileReport {
  completed: number;
  released: number;
  unresolved: number;
  prunedIdentityNonces: number;
}

class AlreadyCompleted extends Error {}

export class PaymentProcessor {
  private readonly fulfilments = new Map<string, Fulfil>();
  private readonly inlineFulfilments = new Map<string, InlineFulfil>();
  /** Test seam: runs right after the facilitator settled, before anything is written. */
  testHooks: { afterSettle?: () => void | Promise<void> } = {};

  constructor(
    private readonly sql: Sql,
    private readonly facilitator: Facilitator,
    private readonly opts: ProcessorOptions,
  ) {}

  /** Registers the fulfilment of an operation (once, at start-up; the reconciler needs it too). */
  define<C extends JsonObject, R extends JsonObject>(
    operation: string,
    fulfil: Fulfil<C, R>,
    opts: { inline?: InlineFulfil<C, R> } = {},
  ): void {
    if (this.fulfilments.has(operation))
      throw new Error(`paid operation ${operation} defined twice`);
    this.fulfilments.set(operation, fulfil as unknown as Fulfil);
    if (opts.inline) this.inlineFulfilments.set(operation, opts.inline as unknown as InlineFulfil);
  }

  async run<C extends JsonObject, R extends JsonObject = JsonObject>(
    input: RunInput<C>,
  ): Promise<PaidResult<R>> {
    if (!this.fulfilments.has(input.operation))
      throw new Error(`paid operation ${input.operation} is not defined`);
    const { payment } = input;
    const settleDirect = this.facilitator.settleWithoutVerify?.bind(this.facilitator);
    if (!settleDirect) {
      // Happy path first: a fresh authorization verifies. A repeat of a known one (retry, duplicate,
      // crash recovery) fails verification or the claim, and is then answered from its record.
      let verdict;
      try {
        verdict = await this.facilitator.verify(payment.payload, payment.requirement);
      } catch (err) {
        const known = await this.find(payment.payer, payment.nonce);
        if (known && known.status !== 'released') return this.resume<R, C>(known, input);
        this.opts.logger.warn({ err }, 'facilitator verify unavailable');
        throw this.capacity('facilitator_unavailable');
      }
      if (!verdict.isValid) {
        const known = await this.find(payment.payer, payment.nonce);
        if (known && known.status !== 'released') return this.resume<R, C>(known, input);
        throw new AppError('payment_verification_failed', {
          reason: verdict.invalidReason ?? 'verification_failed',
        });
      }
    }
    // Without a verify round trip (local facilitator) the claim comes first: a repeat of a known
    // authorization fails it and is answered from its record, as above.

    const claimed = await this.claim(input);
    if (!claimed) {
      const raced = await this.find(payment.payer, payment.nonce);
      if (raced) return this.resume<R, C>(raced, input);
      throw new AppError('payment_verification_failed', {
        reason: 'invalid_exact_evm_nonce_already_used',
      });
    }

    let outcome: SettleOutcome;
    try {
      if (settleDirect) {
        const settled = await settleDirect(payment.payload, payment.requirement);
        if (settled.rejectedBeforeSettlement) {
          // What verify would have said: nothing moved, so the claim goes exactly as if it had
          // never been made (nonce free again, no order) and the verdict is the facilitator's.
          await this.release(claimed.id);
          throw new AppError('payment_verification_failed', {
            reason: settled.response.errorReason ?? 'verification_failed',
          });
        }
        outcome = classifySettle(settled.response);
      } else {
        outcome = classifySettle(
          await this.facilitator.settle(payment.payload, payment.requirement),
        );
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      outcome = classifySettleError(err, payment.requirement.network);
      this.opts.logger.warn({ err, outcome: outcome.kind }, 'facilitator settle threw');
    }
    await this.testHooks.afterSettle?.();
    return this.apply<R>(
      claimed,
      outcome,
      input.pendingDetails as ((c: JsonObject) => JsonObject) | undefined,
    );
  }

  private async find(payer: string, nonce: string): Promise<PaymentRow | undefined> {
    const [row] = await this.sql<PaymentRow[]>`
      select ${ROW(this.sql)} from x402_payments where payer = ${payer} and nonce = ${nonce}`;
    return row;
  }

  /**
   * Atomically claims the nonce; undefined when another request (or an identity proof) has it.
   * Throws ClaimConditionFailed (nothing written) when the input's claim condition is false.
   */
  private async claim<C extends JsonObject>(input: RunInput<C>): Promise<PaymentRow | undefined> {
    const p = input.payment;
    // One statement: the condition, the nonce claim and the payment row commit together or not at all.
    const sql = this.sql;
    const [row] = await sql<Array<PaymentRow & { claimAllowed: boolean }>>`
      with pre as (
        select (${input.claimCondition ?? sql`true`}) as ok
      ), claimed as (
        insert into x402_nonces (payer, nonce, kind, resource, valid_before)
        select ${p.payer}, ${p.nonce}, 'paid', ${p.resource}, ${p.validBefore}::timestamptz
        where (select ok from pre)
        on conflict do nothing returning 1
      ), ins as (
        insert into x402_payments (operation, resource, payer, nonce, network, asset, pay_to, amount_micro,
                                   valid_before, payload, requirements, context, status)
        select ${input.operation}, ${p.resource}, ${p.payer}, ${p.nonce}, ${p.requirement.network},
               ${p.requirement.asset}, ${p.requirement.payTo}, ${p.amountMicro}::bigint, ${p.validBefore}::timestamptz,
               ${sql.json(p.payload as unknown as postgres.JSONValue)}::jsonb,
               ${sql.json(p.requirement as unknown as postgres.JSONValue)}::jsonb,
               ${sql.json(input.context as postgres.JSONValue)}::jsonb, 'settling'
        where exists (select 1 from claimed)
        on conflict (payer, nonce) do update
          set operation = excluded.operation, resource = excluded.resource, network = excluded.network,
              asset = excluded.asset, pay_to = excluded.pay_to, amount_micro = excluded.amount_micro,
              valid_before = excluded.valid_before, payload = excluded.payload,
              requirements = excluded.requirements, context = excluded.context, status = 'settling',
              transaction = null, settlement = null, result = null, error_code = null,
              error_reason = null, updated_at = now()
          where x402_payments.status = 'released'
        returning ${ROW(sql)}
      )
      select coalesce((select ok from pre), false) as claim_allowed, ins.*
      from (select 1) as one left join ins on true`;
    if (!row?.claimAllowed) throw new ClaimConditionFailed();
    if (row.id === null) return undefined;
    const { claimAllowed: _allowed, ...claimed } = row;
    return claimed;
  }

  private async apply<R extends JsonObject>(
    row: PaymentRow,
    outcome: SettleOutcome,
    pendingDetails?: (c: JsonObject) => JsonObject,
  ): Promise<PaidResult<R>> {
    switch (outcome.kind) {
      case 'settled': {
        const settlement: SettleResponse = {
          ...outcome.response,
          payer: outcome.response.payer ?? row.payer,
        };
        // Money moved: this must end in a completed operation even if a reconciler, misled by a
        // slow facilitator, released the claim meanwhile (the nonce is spent on chain either way).
        const settlementJson = JSON.stringify(settlement);
        const inline = await this.completeInline<R>(row, settlementJson);
        if (inline) return inline;
        await this.sql`
          with settled as (
            update x402_payments set status = 'settled', transaction = ${settlement.transaction},
              settlement = ${this.sql.json(settlement as unknown as postgres.JSONValue)}, updated_at = now()
            where id = ${row.id} and status in ('settling', 'pending', 'released')
            returning payer, nonce, resource, valid_before
          )
          insert into x402_nonces (payer, nonce, kind, resource, valid_before)
          select payer, nonce, 'paid', resource, valid_before from settled
          on conflict do nothing`;
        return this.complete<R>(row.id, false, {
          ...row,
          status: 'settled',
          transaction: settlement.transaction,
          settlementJson,
        });
      }
      case 'capacity':
        await this.release(row.id);
        throw this.capacity(outcome.reason);
      case 'pending':
        await this.sql`
          update x402_payments set status = 'pending', transaction = ${outcome.transaction || null},
            error_reason = ${outcome.reason}, updated_at = now()
          where id = ${row.id} and status = 'settling'`;
        throw this.pending(
          outcome.transaction,
          row.network,
          pendingDetails?.(JSON.parse(row.contextJson) as JsonObject),
        );
      case 'failed':
        await this.sql`
          update x402_payments set status = 'failed', error_code = 'payment_settlement_failed',
            error_reason = ${outcome.reason}, updated_at = now()
          where id = ${row.id} and status = 'settling'`;
        throw new AppError('payment_settlement_failed', { reason: outcome.reason });
    }
  }

  /**
   * The request path after settlement, in ONE statement when the operation has an inline form:
   * claim -> completed with the settlement, the nonce re-asserted and the operation's writes, all
   * or nothing. Returns undefined (nothing written) when the statement completed nothing or failed;
   * the caller then records `settled` and completes in two steps, exactly as without an inline form.
   * A crash before this statement leaves the claim `settling`, which the reconciler resolves from
   * the facilitator's authorization state, as before.
   */
  private async completeInline<R extends JsonObject>(
    row: PaymentRow,
    settlementJson: string,
  ): Promise<PaidResult<R> | undefined> {
    const inline = this.inlineFulfilments.get(row.operation);
    if (!inline) return undefined;
    const settlement = JSON.parse(settlementJson) as SettleResponse;
    const sql = this.sql;
    const { ready, writes, result } = inline(
      sql,
      this.paidContext({ ...row, transaction: settlement.transaction }),
    );
    const open = sql`status in ('settling', 'pending', 'released')`;
    try {
      const [r] = await sql<{ completed: number }[]>`
        with eligible as (
          select status from x402_payments where id = ${row.id} and ${open}
        ), ${ready}, done as (
          update x402_payments set status = 'completed', transaction = ${settlement.transaction},
            settlement = ${sql.json(settlement as unknown as postgres.JSONValue)},
            result = ${sql.json(result as postgres.JSONValue)}, updated_at = now()
          where id = ${row.id} and ${open} and exists (select 1 from ready)
          returning payer, nonce, resource, valid_before
        ), spent as (
          -- the claim's nonce row stands unless a reconciler released it meanwhile: spent again
          insert into x402_nonces (payer, nonce, kind, resource, valid_before)
          select payer, nonce, 'paid', resource, valid_before from done
          where exists (select 1 from eligible where status = 'released')
          on conflict do nothing
        ), ${writes}
        select count(*)::int as completed from done`;
      if (r?.completed !== 1) return undefined;
    } catch (err) {
      this.opts.logger.warn(
        { err, paymentId: row.id },
        'inline fulfilment failed; completing in two steps',
      );
      return undefined;
    }
    return {
      paymentId: row.id,
      result: JSON.parse(JSON.stringify(result)) as R,
      settlement,
      paymentResponseHeader: encodePaymentResponseHeader(settlement),
      replayed: false,
    };
  }

  /** A claim that already exists for this payer and nonce: same request again, or a replay. */
  private async resume<R extends JsonObject, C extends JsonObject>(
    row: PaymentRow,
    input: RunInput<C>,
  ): Promise<PaidResult<R>> {
    const p = input.payment;
    const same =
      row.operation === input.operation &&
      row.resource === p.resource &&
      row.amountMicro === p.amountMicro &&
      row.payTo.toLowerCase() === p.requirement.payTo.toLowerCase() &&
      row.network === p.requirement.network;
    if (!same)
      throw new AppError('payment_verification_failed', {
        reason: 'invalid_exact_evm_nonce_already_used',
      });

    const deadline = Date.now() + (this.opts.duplicateWaitMs ?? 15_000);
    for (;;) {
      switch (row.status) {
        case 'completed':
          return this.complete<R>(row.id, true);
        case 'settled':
          return this.complete<R>(row.id, false);
        case 'pending':
          throw this.pending(
            row.transaction ?? '',
            row.network,
            input.pendingDetails?.(JSON.parse(row.contextJson) as C),
          );
        case 'failed':
          throw new AppError(
            row.errorCode === 'payment_settlement_failed'
              ? 'payment_settlement_failed'
              : 'payment_verification_failed',
            {
              reason: row.errorReason ?? 'settlement_failed',
            },
          );
        case 'released':
          // The earlier attempt released the nonce (capacity): this request starts afresh.
          return this.run<C, R>(input);
        case 'settling':
          if (Date.now() - row.updatedAt.getTime() > this.opts.staleSeconds * 1000) {
            // The request that claimed it is gone (crash): learn the outcome now.
            await this.reconcileRow(row);
            row = (await this.find(row.payer, row.nonce))!;
            if (row.status === 'settling')
              throw this.pending(
                row.transaction ?? '',
                row.network,
                input.pendingDetails?.(JSON.parse(row.contextJson) as C),
              );
            continue;
          }
          if (Date.now() > deadline)
            throw this.pending(
              row.transaction ?? '',
              row.network,
              input.pendingDetails?.(JSON.parse(row.contextJson) as C),
            );
          await sleep(25);
          row = (await this.find(row.payer, row.nonce))!;
      }
    }
  }

  /**
   * Runs the fulfilment for a settled payment exactly once and returns the stored result. The
   * fulfilment and the `settled -> completed` move share one transaction; a concurrent completer
   * blocks on the row, then finds it completed, rolls its own writes back and reads the result.
   */
  private async complete<R extends JsonObject>(
    paymentId: string,
    replayed: boolean,
    settled?: PaymentRow,
  ): Promise<PaidResult<R>> {
    let row: PaymentRow | undefined;
    const r =
      settled ??
      (
        await this.sql<
          PaymentRow[]
        >`select ${ROW(this.sql)} from x402_payments where id = ${paymentId}`
      )[0];
    if (!r) throw new Error(`payment ${paymentId} vanished`);
    if (r.status === 'completed') row = r;
    else {
      if (r.status !== 'settled')
        throw new Error(`payment ${paymentId} is ${r.status}, not settled`);
      const fulfil = this.fulfilments.get(r.operation);
      if (!fulfil) throw new Error(`paid operation ${r.operation} is not defined`);
      try {
        row = await this.sql.begin(async (tx) => {
          const result = await fulfil(tx, this.paidContext(r));
          const [done] = await tx<PaymentRow[]>`
            update x402_payments set status = 'completed', result = ${tx.json(result as postgres.JSONValue)}, updated_at = now()
            where id = ${paymentId} and status = 'settled' returning ${ROW(tx)}`;
          if (!done) throw new AlreadyCompleted();
          return done;
        });
      } catch (e) {
        if (!(e instanceof AlreadyCompleted) && !(await this.readCompleted(paymentId))) throw e;
        row = await this.readCompleted(paymentId);
        if (!row) throw e;
      }
    }
    const settlement = JSON.parse(row.settlementJson ?? 'null') as SettleResponse;
    return {
      paymentId: row.id,
      result: JSON.parse(row.resultJson!) as R,
      settlement,
      paymentResponseHeader: encodePaymentResponseHeader(settlement),
      replayed,
    };
  }

  private async readCompleted(paymentId: string): Promise<PaymentRow | undefined> {
    const [r] = await this.sql<PaymentRow[]>`
      select ${ROW(this.sql)} from x402_payments where id = ${paymentId} and status = 'completed'`;
    return r;
  }

  private paidContext(r: PaymentRow): PaidContext {
    return {
      paymentId: r.id,
      operation: r.operation,
      resource: r.resource,
      payer: r.payer,
      chain: chainOfNetwork(r.network)!,
      network: r.network,
      asset: r.asset,
      payTo: r.payTo,
      amountMicro: r.amountMicro,
      transaction: r.transaction ?? '',
      context: JSON.parse(r.contextJson) as JsonObject,
    };
  }

  private async release(paymentId: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      const [r] = await tx<{ payer: string; nonce: string }[]>`
        update x402_payments set status = 'released', updated_at = now()
        where id = ${paymentId} and status in ('settling', 'pending') returning payer, nonce`;
      if (r) await tx`delete from x402_nonces where payer = ${r.payer} and nonce = ${r.nonce}`;
    });
  }

  private capacity(reason: string): AppError {
    const s = this.opts.retryAfterSeconds;
    return new AppError('settlement_capacity', {
      reason,
      retry_after: s,
      headers: { 'Retry-After': String(s) },
    });
  }

  private pending(transaction: string, network: string, details?: JsonObject): AppError {
    return new AppError('payment_settlement_pending', {
      transaction,
      network,
      ...(details && { details }),
    });
  }

  /**
   * Resolves claims whose request never learnt (or never recorded) the outcome: asks the
   * facilitator / chain, then completes the operation or releases the nonce. Safe to run from
   * several workers at once (every transition is a guarded UPDATE; fulfilment locks the row).
   */
  async reconcile(opts: { staleSeconds: number; limit?: number }): Promise<ReconcileReport> {
    const report: ReconcileReport = {
      completed: 0,
      released: 0,
      unresolved: 0,
      prunedIdentityNonces: 0,
    };
    const rows = await this.sql<PaymentRow[]>`
      select ${ROW(this.sql)} from x402_payments
      where status = 'pending'
         or (status in ('settling', 'settled') and updated_at <= now() - make_interval(secs => ${opts.staleSeconds}))
      order by updated_at limit ${opts.limit ?? 100}`;
    for (const row of rows) {
      const r = await this.reconcileRow(row);
      if (r === 'completed') report.completed++;
      else if (r === 'released') report.released++;
      else report.unresolved++;
    }
    const pruned = await this.sql`
      delete from x402_nonces where kind = 'identity' and valid_before < now() - interval '1 hour'`;
    report.prunedIdentityNonces = pruned.count;
    return report;
  }

  private async reconcileRow(row: PaymentRow): Promise<'completed' | 'released' | 'unresolved'> {
    try {
      if (row.status === 'settled') {
        await this.complete(row.id, false);
        return 'completed';
      }
      const state = await this.facilitator.authorizationState({
        network: row.network,
        asset: row.asset,
        payer: row.payer,
        nonce: row.nonce,
        ...(row.transaction && { transaction: row.transaction }),
      });
      if (state.state === 'settled') {
        const settlement: SettleResponse = {
          success: true,
          transaction: state.transaction,
          network: row.network as SettleResponse['network'],
          payer: row.payer,
          amount: String(row.amountMicro),
        };
        await this.sql`
          update x402_payments set status = 'settled', transaction = ${state.transaction},
            settlement = ${this.sql.json(settlement as unknown as postgres.JSONValue)}, updated_at = now()
          where id = ${row.id} and status in ('settling', 'pending')`;
        await this.complete(row.id, false);
        return 'completed';
      }
      if (
        state.state === 'unused' &&
        (this.facilitator.kind === 'local' || row.validBefore.getTime() < Date.now())
      ) {
        // The authorization was not used and can no longer be (the local ledger is authoritative;
        // otherwise its window has closed): nobody was charged, the nonce is free again.
        await this.release(row.id);
        return 'released';
      }
      return 'unresolved';
    } catch (err) {
      this.opts.logger.error({ err, paymentId: row.id }, 'reconciliation failed');
      return 'unresolved';
    }
  }
}

export type { PaymentPayload, PaymentRequirements };
