import { setTimeout as sleep } from 'node:timers/promises';
import type { SettleResponse } from '@x402/core/types';
import { statementCancelled } from '../../db/unreachable.js';
import { AppError } from '../../errors.js';
import {
  classifySettle,
  classifySettleError,
  type Facilitator,
  type SettleOutcome,
} from '../../x402/facilitator.js';
import { authorizationAlreadyUsed } from '../../x402/guard.js';
import type { Fulfilment, JsonObject } from './fulfilment.js';
import {
  answer,
  readCompleted,
  settlementCapacity,
  settlementPending,
  spentAuthorization,
  type PaidResult,
} from './answers.js';
import {
  requestDigest,
  sameRequest,
  type ProcessorOptions,
  type RunInput,
} from './paid-request.js';
import type { ChainReadWarnings } from './chain-reads.js';
import { isIdentifierTaken, type IdentifiedPayment } from './identifiers.js';
import { SettlementRecheck, type RecheckOutcome } from './recheck.js';
import { ClaimConditionFailed, PaymentStore, type PaymentRow } from './store.js';

export { ClaimConditionFailed, requestDigest };
export type { PaidResult, ProcessorOptions, RunInput };

/** 409: the id came with a payment for another request; this one is not claimed nor settled. */
const identifierConflict = () => new AppError('payment_identifier_conflict');

/** The key of an authorization in `PaymentProcessor.holding`. */
const holdKey = (payer: string, nonce: string) => `${payer.toLowerCase()} ${nonce.toLowerCase()}`;

/** When this claim last changed or was last asked about (ms since the epoch). */
const lastAsked = (row: PaymentRow) => (row.recheckedAt ?? row.updatedAt).getTime();

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
 * - A payment carrying a `payment-identifier` id (x402 extension, issue 27) is also run at most
 *   once per (payer, id): a later payment with the same id for the same request (same digest),
 *   even one signed afresh, is answered as the first one is (its order, its outcome) and is itself
 *   never claimed or settled; for another request it is refused with 409
 *   payment_identifier_conflict. Concurrent ones race on the id's primary key, inside the claim.
 *   Except after a settlement failure (nothing charged): a fresh authorization takes the id over.
 */
export class PaymentProcessor {
  private readonly fulfilments = new Map<string, Fulfilment>();
  /** Test seam: runs right after the facilitator settled, before anything is written. */
  testHooks: { afterSettle?: () => void | Promise<void> } = {};

  /** Asks the facilitator or the chain about unresolved payments (recheck.ts). */
  private readonly recheck: SettlementRecheck;

  /**
   * The authorizations (payer, nonce) this process's requests hold, with how many hold each: from
   * before the claim statement is sent to the request's outcome. A claim held here is never
   * abandoned (`abandoned`, the reconciler's `holds`), whatever the clock says: a host clock
   * stepped back after the database opened would date a new claim before `orphanedBefore`, one
   * stepped forward or a settlement slower than the stale period would make it stale. Keyed by
   * the authorization, not the row: a released claim taken again keeps its row id, and one run
   * ending must not drop another's hold. Taken before the statement, so a pass never reads a
   * claim that landed between its look and its act.
   */
  private readonly holding = new Map<string, number>();

  constructor(
    readonly store: PaymentStore,
    readonly facilitator: Facilitator,
    private readonly opts: ProcessorOptions,
  ) {
    this.recheck = new SettlementRecheck(
      store,
      facilitator,
      opts.chainClockGraceSeconds,
      // the reconciler's and recovery's completions answer nobody: a later request may take the answer
      async (r, s, asRead) =>
        (await this.completeRow(r, s, { answering: false, asRead })) !== undefined,
    );
  }

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
    const { payment } = input;
    const id = payment.paymentIdentifier;
    // An id this payer used before needs no look-up first: the completing statement and the claim
    // record the id with the payment and fail whole (nothing claimed, nothing moved) when it is
    // held, and the answer is found below. A retry on terms no longer offered takes no claim.
    if (payment.resumed) {
      const earlier = id && (await this.store.identified(payment.payer, id));
      if (earlier) return this.answerIdentified<R, C>(earlier, input, digest);
      // a retry on terms no longer offered: its claim answers it; nothing is claimed anew
      const known = await this.store.find(payment.payer, payment.nonce);
      if (known && known.status !== 'released') return this.resume<R, C>(known, input, digest);
      throw new AppError('payment_verification_failed', { reason: 'requirements_not_issued' });
    }
    const drop = this.hold(payment.payer, payment.nonce);
    let claimed: PaymentRow | undefined;
    try {
      const fused = await this.runInOneStatement<C, R>(input, digest);
      if (fused) return fused;
      claimed = await this.store.claim({
        operation: input.operation,
        payment,
        context: input.context,
        requestDigest: digest,
        ...(input.claimCondition && { condition: input.claimCondition }),
      });
    } catch (err) {
      drop(); // before any wait below: nothing of this request was written
      // the terms changed since this payer's earlier payment with this id: it answers as before
      const earlier =
        id &&
        err instanceof ClaimConditionFailed &&
        (await this.store.identified(payment.payer, id));
      if (earlier) return this.answerIdentified<R, C>(earlier, input, digest);
      // another request with this id claimed first (nothing of this one was written)
      if (id && isIdentifierTaken(err)) {
        // The holder may be gone before this read for a moment only: a concurrent retry that
        // freed its failed payment's id (`answerIdentified`) claims it anew a statement later.
        // Looked for again briefly (at most ~200 ms) before answering.
        for (let look = 0; look < 8; look++) {
          const first = await this.store.identified(payment.payer, id);
          if (first) return this.answerIdentified<R, C>(first, input, digest);
          await sleep(25);
        }
        // the winner was released (nothing moved) before this read: nothing of this request was
        // written or charged, and the id is free again; a retry starts afresh
        throw settlementCapacity('payment_identifier_released', this.opts.retryAfterSeconds);
      }
      throw err;
    } finally {
      // completed in one statement, refused, or another request's claim (or none): this request
      // holds nothing (it waits for or resolves another's claim as any retry does)
      if (!claimed) drop();
    }
    if (!claimed) {
      // A repeat of a known authorization (retry, duplicate, crash recovery) or a replay: with
      // its first request's id, the payer's own retry.
      const earlier = id && (await this.store.identified(payment.payer, id));
      if (earlier) return this.answerIdentified<R, C>(earlier, input, digest);
      const known = await this.store.find(payment.payer, payment.nonce);
      if (known) return this.resume<R, C>(known, input, digest);
      throw new AppError('payment_verification_failed', {
        reason: 'invalid_exact_evm_nonce_already_used',
      });
    }

    try {
      return await this.settleClaimed<C, R>(input, claimed);
    } finally {
      drop();
    }
  }

  /** Holds (payer, nonce) for this request (`holding`); the function returned lets go, once. */
  private hold(payer: string, nonce: string): () => void {
    const key = holdKey(payer, nonce);
    this.holding.set(key, (this.holding.get(key) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.holding.get(key)! - 1;
      if (left > 0) this.holding.set(key, left);
      else this.holding.delete(key);
    };
  }

  /**
   * True while a request of this process holds this claim's authorization (from before its claim
   * statement to its outcome): not abandoned, whatever its age. Another process's requests are
   * not known here; their claims wait out the stale period.
   */
  holds(row: Pick<PaymentRow, 'payer' | 'nonce'>): boolean {
    return this.holding.has(holdKey(row.payer, row.nonce));
  }

  /** `run` once this request holds the claim: settle, then complete, release or record. */
  private async settleClaimed<C extends JsonObject, R extends JsonObject>(
    input: RunInput<C>,
    claimed: PaymentRow,
  ): Promise<PaidResult<R>> {
    const { payment } = input;
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
        return this.completeSettled<R>(
          claimed,
          { ...outcome.response, payer: outcome.response.payer ?? claimed.payer },
          payment.paymentIdentifier,
        );
      case 'capacity':
        await this.store.release(claimed.id);
        throw settlementCapacity(outcome.reason, this.opts.retryAfterSeconds);
      case 'pending':
        await this.store.markPending(claimed.id, outcome.transaction, outcome.reason);
        throw settlementPending(claimed, outcome.transaction, pending);
      case 'failed':
        await this.store.markFailed(claimed.id, outcome.reason, outcome.response?.transaction);
        throw this.recheck.settlementFailed(payment.validBefore, outcome.reason);
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
      // A statement cut by its timeout (a lock held elsewhere: src/db/timeouts.ts) is no
      // conflict: it rolled back whole (no nonce, no transfer, no order), and the stepwise path
      // would settle, then meet the same lock writing the order, twice: three timeouts, the money
      // moved and no order. The request fails as it is (503 database_unavailable) and the same
      // signed request, sent again, completes it.
      if (statementCancelled(err)) throw err;
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
    return answer<R>(done.id, done.resultJson, inline.response, false);
  }

  /**
   * Money moved: completes the payment with its fulfilment in one statement. If that statement
   * fails, the settlement is recorded (`settled`) and the completion tried once more; after that
   * the reconciler finishes it, and a retry of the request answers from the record.
   */
  async completeSettled<R extends JsonObject>(
    row: PaymentRow,
    settlement: SettleResponse,
    identifier?: string,
  ): Promise<PaidResult<R>> {
    const resultJson = await this.completeRow(row, settlement, { answering: true, identifier });
    if (resultJson !== undefined) return answer<R>(row.id, resultJson, settlement, false);
    // completed meanwhile by the reconciler: this request, the one that paid, answers it
    await this.store.answered(row.id);
    return readCompleted<R>(this.store, row.id, false);
  }

  /**
   * `completeSettled`'s statement: the result when this call completed the payment, undefined
   * when it was no longer open (completed by a concurrent request or reconciler pass) or, with
   * `asRead` (a recheck's), no longer the row as it was read. `identifier`: the request's
   * payment-identifier id, put back if its claim was released meanwhile (completion.ts).
   */
  private async completeRow(
    row: PaymentRow,
    settlement: SettleResponse,
    how: { answering: boolean; asRead?: { version: string } | undefined; identifier?: string },
  ): Promise<string | undefined> {
    const fulfil = this.fulfilment(row.operation);
    const { answering, identifier } = how;
    let { asRead } = how;
    for (let attempt = 1; ; attempt++) {
      try {
        const completing = {
          row,
          settlement,
          answering,
          ...(asRead && { asRead }),
          ...(identifier && { identifier }),
        };
        return (await this.store.completion(completing, fulfil)).resultJson;
      } catch (err) {
        const cancelled = statementCancelled(err);
        if (cancelled) {
          // Cut by its timeout (src/db/timeouts.ts): a lock held elsewhere, which a second try
          // would meet again, doubling the wait (60 s at the default) past what a client waits
          // for. The settlement is recorded, the request answers 503 database_unavailable, and
          // the same signed request sent again (or the reconciler) completes it. One line with
          // the payment, no stack: nothing is broken, the money moved and is on record.
          this.opts.logger.warn(
            { paymentId: row.id, timeout: cancelled.timeout, reason: cancelled.reason },
            `completing a settled payment was cancelled by ${cancelled.timeout}; recorded settled`,
          );
          await this.store.markSettled(row.id, settlement, asRead);
          throw err;
        }
        this.opts.logger.warn(
          { err, paymentId: row.id, attempt },
          'completing a settled payment failed',
        );
        if (attempt >= 2) throw err;
        const version = await this.store.markSettled(row.id, settlement, asRead);
        // a row read settled has nothing to record: markSettled writes nothing, and that is no news
        if (asRead && row.status !== 'settled') {
          // a recheck completes only the row it read: written since by someone else, it is theirs
          if (version === undefined) return undefined;
          asRead = { version };
        }
      }
    }
  }

  /**
   * True when this authorization already has a claim (a retry, not a new payment); throws 409
   * `authorization_already_used` when that claim was for another request. A caller with work to
   * do before `run` (storing an upload's bytes) asks first, so a refused replay stores nothing.
   */
  async knownClaim<C extends JsonObject>(input: RunInput<C>): Promise<boolean> {
    const id = input.payment.paymentIdentifier;
    const earlier = id && (await this.store.identified(input.payment.payer, id));
    if (earlier) {
      if (earlier.requestDigest !== requestDigest(input)) throw identifierConflict();
      // Only a payment that moved money answers for this one without the caller's own checks
      // (duplicates, the listing cap): one still settling, or pending (its transaction may be
      // dropped and released after its window), may yet be released, and this request's
      // authorization then settles in its place.
      const first = await this.store.byId(earlier.paymentId);
      return first !== undefined && ['completed', 'settled'].includes(first.status);
    }
    const row = await this.store.find(input.payment.payer, input.payment.nonce);
    if (!row || row.status === 'released') return false;
    if (!sameRequest(row, input, requestDigest(input))) throw authorizationAlreadyUsed();
    return true;
  }

  /**
   * A payment whose `payment-identifier` id this payer used before: for the same request, the
   * first payment's outcome (this one is never claimed nor settled); for another, 409.
   */
  private async answerIdentified<R extends JsonObject, C extends JsonObject>(
    earlier: IdentifiedPayment,
    input: RunInput<C>,
    digest: string,
  ): Promise<PaidResult<R>> {
    if (earlier.requestDigest !== digest) throw identifierConflict();
    const row = await this.store.byId(earlier.paymentId);
    if (!row) throw new Error(`payment ${earlier.paymentId} of a payment identifier is missing`);
    // A fresh authorization (verified within its window) proves the payer anew: the completed
    // purchase is answered even after the first authorization's window closed.
    // (an authorization let through past its window, because its own nonce was claimed before,
    // proves nothing anew: only one still within its window does)
    const fresh =
      row.nonce !== input.payment.nonce && input.payment.validBefore.getTime() > Date.now();
    const id = input.payment.paymentIdentifier;
    if (fresh && row.status === 'failed' && id) {
      // The chain is asked once for this request: its answer decides here and is not asked
      // again by `resume`.
      const decided = await this.recheck.decideFailed(row);
      if (decided === 'failed') {
        // The id's payment failed at settlement: nothing was charged, and that authorization is
        // spent here for good. A payer who topped up retries the same request with the same id:
        // it runs afresh (the id goes to this payment's claim; concurrent retries race on it as
        // any first payment does). The id then answers that payment, whichever signature carries
        // it.
        await this.store.forgetFailedIdentifier(input.payment.payer, id, row.id);
        return this.run<C, R>(input);
      }
      // mined: completed just now, answered as such; undecided: its failure, not asked again
      const current = decided === 'completed' ? (await this.store.byId(row.id))! : row;
      return this.resume<R, C>(current, input, digest, {
        freshProof: fresh,
        chainAsked: true,
        knownId: true,
      });
    }
    // the request carries its first request's id: a value the chain never saw
    return this.resume<R, C>(row, input, digest, { freshProof: fresh, knownId: true });
  }

  /**
   * A request whose authorization already has a claim: answered from that claim. What a replay of
   * the same signed request proves: everything in it (the authorization, its signature, the
   * requirement, the route) is public once the transfer is broadcast, so on its own it proves
   * nothing an observer of the chain could not send. It gets the result (an order's fresh links)
   * only with what the chain never saw: its first request's payment identifier (`knownId`) or a
   * fresh authorization of the payer (`freshProof`); or as the first answer of a payment completed
   * out of band (reconciler, crash recovery, a pending settlement), whose buyer was never answered.
   * Otherwise it is refused and names the order or item, whose links come from the owner's
   * identity-proved routes (`spentAuthorization`).
   */
  private async resume<R extends JsonObject, C extends JsonObject>(
    row: PaymentRow,
    input: RunInput<C>,
    digest: string,
    proof: { freshProof?: boolean; chainAsked?: boolean; knownId?: boolean } = {},
  ): Promise<PaidResult<R>> {
    const { freshProof = false, knownId = false } = proof;
    // proves something the chain never showed: answered with the result while it is in its window
    const proven = freshProof || knownId;
    // A released claim moved nothing: the authorization is free for whatever request comes.
    if (row.status !== 'released' && !sameRequest(row, input, digest)) {
      throw authorizationAlreadyUsed();
    }
    const pending = input.pendingDetails as ((c: JsonObject) => JsonObject) | undefined;
    const deadline = Date.now() + (this.opts.duplicateWaitMs ?? 15_000);
    // a failure at settlement is asked about at most once per request
    let askedChain = proof.chainAsked ?? false;
    for (;;) {
      switch (row.status) {
        case 'completed':
          if (!freshProof && Date.now() >= row.validBefore.getTime())
            throw spentAuthorization(row, pending, input.freshLinks);
          if (!input.answerMintsLinks) return readCompleted<R>(this.store, row.id, true);
          if (proven) {
            // the payer's own retry takes the first answer too (no later copy may)
            await this.store.answered(row.id);
            return readCompleted<R>(this.store, row.id, true);
          }
          if (await this.store.takeFirstAnswer(row.id))
            return readCompleted<R>(this.store, row.id, true);
          throw spentAuthorization(row, pending, input.freshLinks, 'answered');
        case 'settled': {
          // the money moved and the request that claimed it is gone: completed now, and answered
          // here unless a concurrent caller completed it first (then as any completed one); a
          // copy that proves nothing completes it unanswered and is answered as any completed one
          const settlement = JSON.parse(row.settlementJson!) as SettleResponse;
          const answering = proven || !input.answerMintsLinks;
          const resultJson = await this.completeRow(row, settlement, { answering });
          if (resultJson !== undefined && answering)
            return answer<R>(row.id, resultJson, settlement, false);
          row = (await this.store.byId(row.id))!;
          continue;
        }
        case 'failed':
          if (row.errorCode !== 'payment_settlement_failed')
            throw new AppError('payment_verification_failed', {
              reason: row.errorReason ?? 'settlement_failed',
            });
          // A failure at settlement whose transfer may have been mined after all: asked once here
          // (as the reconciler asks); mined, the payment is completed and answered as such.
          if (!askedChain) {
            askedChain = true;
            if ((await this.recheck.settleFailed(row)) === 'completed') {
              row = (await this.store.byId(row.id))!;
              continue;
            }
          }
          throw this.recheck.settlementFailed(
            row.validBefore,
            row.errorReason ?? 'settlement_failed',
          );
        case 'released':
          // The earlier attempt released the nonce (capacity, or a dropped transaction whose
          // window closed): this request starts afresh, unless its own authorization expired
          // meanwhile (as the guard answers it once no claim holds the nonce; nothing settles).
          if (Date.now() >= input.payment.validBefore.getTime())
            throw new AppError('payment_verification_failed', {
              reason: 'invalid_exact_evm_payload_authorization_valid_before',
            });
          return this.run<C, R>(input);
        case 'pending':
        case 'settling':
          if (this.abandoned(row)) {
            // The request that claimed it is gone (crash), or its transaction was left pending:
            // learn the outcome now, as the reconciler does. Asked at most once per stale period
            // (retries, the reconciler's passes and every replica count alike), so retries cannot
            // turn into a stream of chain reads; a claim of a process gone before this one opened
            // the embedded database is asked at once, then as any other (the ask is recorded).
            await this.recheck.settleAbandoned(row);
            row = (await this.store.byId(row.id))!;
            if (row.status === 'settling' || row.status === 'pending')
              throw settlementPending(row, row.transaction ?? '', pending);
            continue;
          }
          // a young pending one is answered as it stands (the reconciler or a later retry asks)
          if (row.status === 'pending' || Date.now() > deadline)
            throw settlementPending(row, row.transaction ?? '', pending);
          await sleep(25);
          row = (await this.store.byId(row.id))!;
      }
    }
  }

  /**
   * True when no request can still be running for this open claim: it was last written before
   * this process opened the embedded database (`orphanedBefore`: its process is gone), or it was
   * last asked about longer ago than the stale period. The first compares two of the database's
   * own timestamps; the second, as always, the database's with this process's clock.
   */
  private abandoned(row: PaymentRow): boolean {
    if (this.holds(row)) return false;
    const orphanedBefore = this.opts.orphanedBefore?.getTime();
    if (orphanedBefore !== undefined && lastAsked(row) < orphanedBefore) return true;
    return Date.now() - lastAsked(row) > this.opts.staleSeconds * 1000;
  }

  /**
   * Embedded only: claims last written before this instant belong to a process that is gone, for
   * the reconciler's choice of claims (those this process's requests hold are skipped as it
   * reaches them: `holds`).
   */
  get orphanedBefore(): Date | undefined {
    return this.opts.orphanedBefore;
  }

  /**
   * Resolves a claim whose request never learnt (or never recorded) the outcome, or a failure at
   * settlement not yet final (`SettlementRecheck.settleAbandoned`): for the reconciler.
   */
  settleAbandoned(row: PaymentRow): Promise<RecheckOutcome> {
    return this.recheck.settleAbandoned(row);
  }

  /** Why rechecks (the reconciler's and buyers' retries) could not read the chain. */
  get chainReads(): ChainReadWarnings {
    return this.recheck.chainReads;
  }
}
