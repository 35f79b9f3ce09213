import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SettleResponse } from '@x402/core/types';
import type { Logger } from 'pino';
import { AppError } from '../../errors.js';
import { encodePaymentResponseHeader } from '../../x402/codec.js';
import {
  classifySettle,
  classifySettleError,
  type Facilitator,
  type SettleOutcome,
} from '../../x402/facilitator.js';
import { authorizationAlreadyUsed, type VerifiedPayment } from '../../x402/guard.js';
import type { Fulfilment, JsonObject, SqlFragment } from './fulfilment.js';
import { ClaimConditionFailed, PaymentStore, type PaymentRow } from './store.js';

export { ClaimConditionFailed };

/**
 * Runs a paid operation at most once per EIP-3009 authorization (money safety, spec 7.1):
 *
 *   claim the nonce (Postgres unique keys) -> checked settle (the facilitator verifies, then
 *   moves the money) -> ONE statement completes the payment with the operation's fulfilment
 *
 * - A rejection before anything moved (signature, nonce used, balance) releases the claim and
 *   answers 402 payment_verification_failed with the facilitator's reason.
 * - Two concurrent requests with one signed payment: one claims, the other waits for its outcome
 *   and answers the same result. A retry after success answers the stored result (same order).
 * - The process dying between settlement and completion leaves the claim `settling`/`settled`;
 *   the reconciler (or the next retry of the same request) asks the facilitator or the chain and
 *   completes it, so a paid operation is never lost and never charged twice.
 * - Outcomes: 402 payment_verification_failed (+reason), 503 settlement_capacity (+retry_after,
 *   nonce released), 409 payment_settlement_pending (+transaction, network; reconciled later),
 *   402 payment_settlement_failed (+reason; terminal for this authorization).
 */
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
  /** Extra fields for the 409 payment_settlement_pending body (e.g. the reserved order id). */
  pendingDetails?: (context: C) => JsonObject;
  /**
   * A boolean SQL expression re-checked inside the claim statement (e.g. the item is still sold
   * on these terms): when false nothing is claimed, settled or written and `run` throws
   * `ClaimConditionFailed`, so the caller can answer from fresh data.
   */
  claimCondition?: SqlFragment;
  /**
   * What makes two requests the same one, beyond the operation, route and requirement (which
   * always count): a listing's archive digest and metadata, a purchase's item, chain and buyer.
   * Never anything a request draws at random (the reserved order or item id). Default: nothing
   * beyond those.
   */
  request?: JsonObject;
}

/**
 * The digest a payment row keeps of what its authorization was used for: a replay is answered
 * from the stored result only when it is the same operation on the same content.
 */
export function requestDigest(input: {
  operation: string;
  payment: VerifiedPayment;
  request?: JsonObject;
}): string {
  const p = input.payment;
  return createHash('sha256')
    .update(
      canonicalJson({
        operation: input.operation,
        resource: p.resource,
        network: p.requirement.network,
        asset: p.requirement.asset.toLowerCase(),
        pay_to: p.requirement.payTo.toLowerCase(),
        amount_micro: p.amountMicro,
        request: input.request ?? {},
      }),
    )
    .digest('hex');
}

/** JSON with object keys sorted at every level, so equal content always hashes alike. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export interface ProcessorOptions {
  retryAfterSeconds: number;
  /** Age after which a `settling` claim counts as abandoned by a dead request. */
  staleSeconds: number;
  logger: Logger;
  /** How long a duplicate request waits for the first one's outcome. */
  duplicateWaitMs?: number;
}

export class PaymentProcessor {
  private readonly fulfilments = new Map<string, Fulfilment>();
  /** Test seam: runs right after the facilitator settled, before anything is written. */
  testHooks: { afterSettle?: () => void | Promise<void> } = {};

  constructor(
    readonly store: PaymentStore,
    readonly facilitator: Facilitator,
    private readonly opts: ProcessorOptions,
  ) {}

  /** Registers the fulfilment of an operation (once, at start-up; the reconciler needs it too). */
  define<C extends JsonObject>(operation: string, fulfil: Fulfilment<C>): void {
    if (this.fulfilments.has(operation))
      throw new Error(`paid operation ${operation} defined twice`);
    this.fulfilments.set(operation, fulfil as unknown as Fulfilment);
  }

  private fulfilment(operation: string): Fulfilment {
    const f = this.fulfilments.get(operation);
    if (!f) throw new Error(`paid operation ${operation} is not defined`);
    return f;
  }

  async run<C extends JsonObject, R extends JsonObject = JsonObject>(
    input: RunInput<C>,
  ): Promise<PaidResult<R>> {
    const digest = requestDigest(input);
    const fused = await this.runInOneStatement<C, R>(input, digest);
    if (fused) return fused;
    const { payment } = input;
    const claimed = await this.store.claim({
      operation: input.operation,
      payment,
      context: input.context,
      requestDigest: digest,
      ...(input.claimCondition && { condition: input.claimCondition }),
    });
    if (!claimed) {
      // A repeat of a known authorization (retry, duplicate, crash recovery) or a replay.
      const known = await this.store.find(payment.payer, payment.nonce);
      if (known) return this.resume<R, C>(known, input, digest);
      throw new AppError('payment_verification_failed', {
        reason: 'invalid_exact_evm_nonce_already_used',
      });
    }

    let outcome: SettleOutcome;
    try {
      const settled = await this.facilitator.settleChecked(payment.payload, payment.requirement);
      if (settled.rejectedBeforeSettlement) {
        // What verify said: nothing moved, so the claim goes as if it had never been made.
        await this.store.release(claimed.id);
        throw new AppError('payment_verification_failed', {
          reason: settled.response.errorReason ?? 'verification_failed',
        });
      }
      outcome = classifySettle(settled.response);
    } catch (err) {
      if (err instanceof AppError) throw err;
      outcome = classifySettleError(err, payment.requirement.network);
      this.opts.logger.warn({ err, outcome: outcome.kind }, 'facilitator settle threw');
    }
    await this.testHooks.afterSettle?.();
    const pending = input.pendingDetails as ((c: JsonObject) => JsonObject) | undefined;
    switch (outcome.kind) {
      case 'settled':
        return this.completeSettled<R>(claimed, {
          ...outcome.response,
          payer: outcome.response.payer ?? claimed.payer,
        });
      case 'capacity':
        await this.store.release(claimed.id);
        throw this.capacity(outcome.reason);
      case 'pending':
        await this.store.markPending(claimed.id, outcome.transaction, outcome.reason);
        throw this.pending(claimed, outcome.transaction, pending);
      case 'failed':
        await this.store.markFailed(claimed.id, outcome.reason);
        throw new AppError('payment_settlement_failed', { reason: outcome.reason });
    }
  }

  /**
   * With a facilitator whose ledger is in our database (the local one), the common case costs one
   * statement: claim, transfer, fulfilment and the completed payment commit together or not at
   * all (`PaymentStore.completion`, inline), so a crash leaves either everything or nothing. Any
   * conflict (a retry of a known nonce, a used nonce, an overdraft) aborts it with nothing
   * written, and the stepwise path below answers it exactly as before. Undefined: take that path.
   */
  private async runInOneStatement<C extends JsonObject, R extends JsonObject>(
    input: RunInput<C>,
    digest: string,
  ): Promise<PaidResult<R> | undefined> {
    const fulfil = this.fulfilment(input.operation);
    const { payment } = input;
    if (!this.facilitator.inlineSettlement || this.testHooks.afterSettle) return undefined;
    const inline = await this.facilitator.inlineSettlement(payment.payload, payment.requirement);
    if (!inline) return undefined;
    let done;
    try {
      done = await this.store.completion(
        {
          claim: {
            operation: input.operation,
            payment,
            context: input.context,
            requestDigest: digest,
            ...(input.claimCondition && { condition: input.claimCondition }),
          },
          settlement: inline,
        },
        fulfil,
      );
    } catch (err) {
      this.opts.logger.debug(
        { code: (err as { code?: string }).code },
        'one-statement payment aborted; taking the stepwise path',
      );
      return undefined;
    }
    if (!done.claimAllowed) throw new ClaimConditionFailed();
    // every write of the statement either happened or aborted it: a result is always there
    if (done.resultJson === undefined)
      throw new Error(`payment ${done.id} completed without a result`);
    return this.answer<R>(done.id, done.resultJson, inline.response, false);
  }

  /**
   * Money moved: completes the payment with its fulfilment in one statement. If that statement
   * fails, the settlement is recorded (`settled`) and the completion tried once more; after that
   * the reconciler finishes it, and a retry of the request answers from the record.
   */
  async completeSettled<R extends JsonObject>(
    row: PaymentRow,
    settlement: SettleResponse,
  ): Promise<PaidResult<R>> {
    const fulfil = this.fulfilment(row.operation);
    for (let attempt = 1; ; attempt++) {
      try {
        const { resultJson } = await this.store.completion({ row, settlement }, fulfil);
        if (resultJson !== undefined) return this.answer<R>(row.id, resultJson, settlement, false);
        return this.readCompleted<R>(row.id, false);
      } catch (err) {
        this.opts.logger.warn(
          { err, paymentId: row.id, attempt },
          'completing a settled payment failed',
        );
        if (attempt === 1) await this.store.markSettled(row.id, settlement);
        if (attempt >= 2) throw err;
      }
    }
  }

  /**
   * True when this authorization already has a claim (a retry, not a new payment); throws 409
   * `authorization_already_used` when that claim was for another request. A caller with work to
   * do before `run` (storing an upload's bytes) asks first, so a refused replay stores nothing.
   */
  async knownClaim<C extends JsonObject>(input: RunInput<C>): Promise<boolean> {
    const row = await this.store.find(input.payment.payer, input.payment.nonce);
    if (!row || row.status === 'released') return false;
    if (!sameRequest(row, input, requestDigest(input))) throw authorizationAlreadyUsed();
    return true;
  }

  /** A claim that already exists for this payer and nonce: the same request again, or a replay. */
  private async resume<R extends JsonObject, C extends JsonObject>(
    row: PaymentRow,
    input: RunInput<C>,
    digest: string,
  ): Promise<PaidResult<R>> {
    // A released claim moved nothing: the authorization is free for whatever request comes.
    if (row.status !== 'released' && !sameRequest(row, input, digest)) {
      throw authorizationAlreadyUsed();
    }
    const pending = input.pendingDetails as ((c: JsonObject) => JsonObject) | undefined;
    const deadline = Date.now() + (this.opts.duplicateWaitMs ?? 15_000);
    for (;;) {
      switch (row.status) {
        case 'completed':
          if (Date.now() >= row.validBefore.getTime()) throw this.spent(row, pending);
          return this.readCompleted<R>(row.id, true);
        case 'settled':
          return this.completeSettled<R>(row, JSON.parse(row.settlementJson!) as SettleResponse);
        case 'pending':
          throw this.pending(row, row.transaction ?? '', pending);
        case 'failed':
          throw new AppError(
            row.errorCode === 'payment_settlement_failed'
              ? 'payment_settlement_failed'
              : 'payment_verification_failed',
            { reason: row.errorReason ?? 'settlement_failed' },
          );
        case 'released':
          // The earlier attempt released the nonce (capacity): this request starts afresh.
          return this.run<C, R>(input);
        case 'settling':
          if (Date.now() - row.updatedAt.getTime() > this.opts.staleSeconds * 1000) {
            // The request that claimed it is gone (crash): learn the outcome now.
            await this.settleAbandoned(row);
            row = (await this.store.byId(row.id))!;
            if (row.status === 'settling') throw this.pending(row, row.transaction ?? '', pending);
            continue;
          }
          if (Date.now() > deadline) throw this.pending(row, row.transaction ?? '', pending);
          await sleep(25);
          row = (await this.store.byId(row.id))!;
      }
    }
  }

  /**
   * Resolves a claim whose request never learnt (or never recorded) the outcome: asks the
   * facilitator or the chain, then completes the operation or releases the nonce. Safe from
   * several processes at once: every transition is a guarded statement.
   */
  async settleAbandoned(row: PaymentRow): Promise<'completed' | 'released' | 'unresolved'> {
    if (row.status === 'settled') {
      await this.completeSettled(row, JSON.parse(row.settlementJson!) as SettleResponse);
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
      await this.completeSettled(row, {
        success: true,
        transaction: state.transaction,
        network: row.network as SettleResponse['network'],
        payer: row.payer,
        amount: String(row.amountMicro),
      });
      return 'completed';
    }
    if (
      state.state === 'unused' &&
      (this.facilitator.kind === 'local' || row.validBefore.getTime() < Date.now())
    ) {
      // Not used and can no longer be (the local ledger is authoritative; otherwise its window
      // has closed): nobody was charged, the nonce is free again.
      await this.store.release(row.id);
      return 'released';
    }
    return 'unresolved';
  }

  private async readCompleted<R extends JsonObject>(
    id: string,
    replayed: boolean,
  ): Promise<PaidResult<R>> {
    const row = await this.store.byId(id);
    if (row?.status !== 'completed')
      throw new Error(`payment ${id} is ${row?.status}, not completed`);
    return this.answer<R>(
      id,
      row.resultJson!,
      JSON.parse(row.settlementJson!) as SettleResponse,
      replayed,
    );
  }

  private answer<R extends JsonObject>(
    paymentId: string,
    resultJson: string,
    settlement: SettleResponse,
    replayed: boolean,
  ): PaidResult<R> {
    return {
      paymentId,
      result: JSON.parse(resultJson) as R,
      settlement,
      paymentResponseHeader: encodePaymentResponseHeader(settlement),
      replayed,
    };
  }

  /**
   * A completed authorization replayed after its validity window: the request no longer proves
   * anything fresh, so it mints nothing (no download link); the answer names the order or item,
   * whose links come from the owner's own routes (`GET /api/v1/orders/{uuid}` with an identity
   * proof). Within the window the replay is an idempotent retry and gets the stored result.
   */
  private spent(row: PaymentRow, details?: (c: JsonObject) => JsonObject): AppError {
    const extra = details?.(JSON.parse(row.contextJson) as JsonObject);
    return new AppError('payment_verification_failed', {
      reason: 'invalid_exact_evm_nonce_already_used',
      message:
        'this authorization was already used and its validity window has closed; the operation it paid for is done (see order_id or item_id). Fetch fresh links with GET /api/v1/orders/{order_id} and an identity proof.',
      ...(extra && { details: extra }),
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

  private pending(
    row: PaymentRow,
    transaction: string,
    details?: (c: JsonObject) => JsonObject,
  ): AppError {
    const extra = details?.(JSON.parse(row.contextJson) as JsonObject);
    return new AppError('payment_settlement_pending', {
      transaction,
      network: row.network,
      ...(extra && { details: extra }),
    });
  }
}

/** Whether a stored claim was made by the same request as `input` (see `requestDigest`). */
function sameRequest(
  row: PaymentRow,
  input: { operation: string; payment: VerifiedPayment },
  digest: string,
): boolean {
  if (row.requestDigest !== null) return row.requestDigest === digest;
  // a claim from before migration 210: its operation, route and requirement must match
  const p = input.payment;
  return (
    row.operation === input.operation &&
    row.resource === p.resource &&
    row.amountMicro === p.amountMicro &&
    row.payTo.toLowerCase() === p.requirement.payTo.toLowerCase() &&
    row.network === p.requirement.network
  );
}
