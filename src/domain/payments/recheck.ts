import type { SettleResponse } from '@x402/core/types';
import { AppError } from '../../errors.js';
import type { AuthorizationState, Facilitator } from '../../x402/facilitator.js';
import { ChainReadWarnings } from './chain-reads.js';
import type { PaymentRow, PaymentStore } from './store.js';

/**
 * The recheck half of payments (moved out of processor.ts): what the facilitator or the chain says
 * of a payment whose outcome its request never learnt, or learnt as a failure that may not be
 * final, and the guarded transition that follows (completed through the processor's completion,
 * released, failed for good, or still unresolved). Used by the reconciler, through
 * `PaymentProcessor.settleAbandoned`, and by a buyer's retry of a failed payment.
 */
export class SettlementRecheck {
  /** Why rechecks could not read the chain, for one warning per cause per period (reconciler). */
  readonly chainReads = new ChainReadWarnings();

  constructor(
    private readonly store: PaymentStore,
    private readonly facilitator: Facilitator,
    private readonly chainClockGraceSeconds: number,
    /**
     * Completes a payment whose money moved (the processor's completion); true when this call
     * completed it, false when it was no longer open (completed by a concurrent pass or retry)
     * or, with `asRead`, no longer the row as it was read.
     */
    private readonly complete: (
      row: PaymentRow,
      settlement: SettleResponse,
      asRead?: { version: string },
    ) => Promise<boolean>,
  ) {}

  /**
   * A failed payment decided from one question to the facilitator or the chain: a failure at
   * settlement as `settleFailed` decides it (mined: completed; final: failed, asked no more);
   * any other failure is 'failed' when it can never move money.
   */
  async decideFailed(row: PaymentRow): Promise<'completed' | 'failed' | 'unresolved'> {
    if (row.errorCode === 'payment_settlement_failed')
      return (await this.failedOutcome(row)).outcome;
    return (await this.canNeverMove(row)) ? 'failed' : 'unresolved';
  }

  /**
   * Whether a payment recorded as failed at settlement moved no money and never will: a facilitator
   * may answer failure after it broadcast the transfer (a receipt wait that timed out), which can
   * still be mined. So the facilitator or the chain is asked, as the reconciler asks of an
   * abandoned claim. Until then the id keeps answering the failure, and the payer's retry is
   * charged nothing twice.
   */
  private async canNeverMove(row: PaymentRow): Promise<boolean> {
    return this.neverMoves(row, await this.chainStateOf(row));
  }

  /**
   * What the facilitator or the chain says of a payment's authorization; a chain that could not
   * be read is recorded for the reconciler's warning (`chainReads`).
   */
  private async chainStateOf(row: PaymentRow): Promise<AuthorizationState> {
    const state = await this.facilitator.authorizationState({
      network: row.network,
      asset: row.asset,
      payer: row.payer,
      nonce: row.nonce,
      since: row.createdAt,
      ...(row.transaction && { transaction: row.transaction }),
    });
    this.chainReads.record(row.id, state.state === 'unknown' ? state.cause : undefined);
    return state;
  }

  /**
   * Not used and can no longer be: the local ledger is authoritative; otherwise the authorization's
   * window has closed on the chain's clock, so nobody was or will be charged by it. The token
   * rejects the transfer only once `block.timestamp >= validBefore`: the head block the state was
   * read at must be stamped at or past `validBefore` (a node stuck behind, or a halted chain that
   * catches up with blocks stamped in the past, can still mine it after our clock passed it). Our
   * clock must also be `chainClockGraceSeconds` past it: a margin for a head that is reorganised
   * away or a node that serves a head ahead of the one the transfer lands against. A state without
   * the head's time (the chain unreadable) is never final.
   *
   * On a chain, `pending` (a transaction known, no receipt, the token's nonce still unused) counts
   * the same: the transaction was dropped or is stuck, and once the window closed it can only
   * revert. (The local ledger's `pending` is a transfer it may still confirm: never final.)
   */
  private neverMoves(row: PaymentRow, state: AuthorizationState): boolean {
    if (this.facilitator.kind === 'local') return state.state === 'unused';
    if (state.state !== 'unused' && state.state !== 'pending') return false;
    const validBefore = row.validBefore.getTime();
    if (state.chainTime === undefined || state.chainTime * 1000 < validBefore) return false;
    return validBefore + this.chainClockGraceSeconds * 1000 < Date.now();
  }

  /**
   * A failure at settlement as the buyer reads it. On a remote rail the transfer may still be
   * mined until `decided_after` (validBefore and the chain clock's grace; later while the chain's
   * head is still before validBefore): a buyer who signed a fresh authorization before then
   * could pay twice, so the answer says when it is decided (at the earliest).
   */
  settlementFailed(validBefore: Date, reason: string): AppError {
    if (this.facilitator.kind === 'local')
      return new AppError('payment_settlement_failed', { reason });
    const decided = new Date(validBefore.getTime() + this.chainClockGraceSeconds * 1000);
    return new AppError('payment_settlement_failed', {
      reason,
      details: { decided_after: decided.toISOString() },
    });
  }

  /**
   * Resolves a claim whose request never learnt (or never recorded) the outcome: asks the
   * facilitator or the chain, then completes the operation or releases the nonce. Safe from
   * several processes at once: every transition is a guarded statement, and only the call whose
   * statement changed the payment reports the transition ('concurrent': another did it).
   *
   * An open claim's transitions apply only to the row as it was read (`PaymentRow.version`): what
   * was decided is about that claim, and between the read and the act a buyer's retry may have
   * resolved it, released it and claimed it again, and be settling it now (in this process or
   * another). Released then, its nonce and payment-identifier id would go from under a running
   * request, and the same id signed afresh would be charged again. A row written since is left
   * ('concurrent'); the next pass, or retry, reads it again and decides on what it then is.
   */
  async settleAbandoned(row: PaymentRow): Promise<RecheckOutcome> {
    if (row.status === 'failed') {
      const { outcome, changed } = await this.failedOutcome(row);
      return changed ? outcome : 'concurrent';
    }
    const asRead = { version: row.version };
    if (row.status === 'settled') {
      const settlement = JSON.parse(row.settlementJson!) as SettleResponse;
      return (await this.complete(row, settlement, asRead)) ? 'completed' : 'concurrent';
    }
    const state = await this.chainStateOf(row);
    if (state.state === 'settled') {
      const settlement = minedSettlement(row, state.transaction);
      return (await this.complete(row, settlement, asRead)) ? 'completed' : 'concurrent';
    }
    if (this.neverMoves(row, state)) {
      // nobody was charged: the nonce is free again
      return (await this.store.release(row.id, asRead)) ? 'released' : 'concurrent';
    }
    // still open (pending, or the chain has no answer yet): asked again in its turn
    await this.store.markRechecked(row.id, asRead);
    return 'unresolved';
  }

  /**
   * A payment the facilitator answered as failed at settlement (`failed`,
   * `payment_settlement_failed`) while its failure is not known final: a remote facilitator may
   * answer failure after it broadcast the transfer (a receipt wait that timed out), and the
   * transfer may be mined. So the facilitator or the chain is asked: mined, the payment is reopened
   * `settled` and completed as an abandoned settled claim is (one order, the sale recorded once);
   * the window closed and the authorization unused, the failure is final (`failureFinalAt`; never
   * asked again); otherwise still undecided ('unresolved', asked again on a later pass). Safe from
   * several processes at once: every transition is a guarded statement.
   */
  async settleFailed(row: PaymentRow): Promise<'completed' | 'failed' | 'unresolved'> {
    return (await this.failedOutcome(row)).outcome;
  }

  /** `settleFailed`, and whether this call's guarded statement made the transition. */
  private async failedOutcome(
    row: PaymentRow,
  ): Promise<{ outcome: 'completed' | 'failed' | 'unresolved'; changed: boolean }> {
    if (row.failureFinalAt) return { outcome: 'failed', changed: false };
    const state = await this.chainStateOf(row);
    if (state.state === 'settled') {
      const settlement = minedSettlement(row, state.transaction);
      await this.store.reopenFailed(row.id, settlement);
      return { outcome: 'completed', changed: await this.complete(row, settlement) };
    }
    if (this.neverMoves(row, state)) {
      return { outcome: 'failed', changed: await this.store.markFailureFinal(row.id) };
    }
    await this.store.markRechecked(row.id);
    return { outcome: 'unresolved', changed: true };
  }
}

/**
 * What one recheck did: completed, released or made final by THIS call (its guarded statement
 * changed the payment), still unresolved, or 'concurrent' (another pass or a retry decided it
 * first: nothing to count).
 */
export type RecheckOutcome = 'completed' | 'released' | 'failed' | 'unresolved' | 'concurrent';

/** The settlement of a transfer found mined on chain (no facilitator answer to keep). */
function minedSettlement(row: PaymentRow, transaction: string): SettleResponse {
  return {
    success: true,
    transaction,
    network: row.network as SettleResponse['network'],
    payer: row.payer,
    amount: String(row.amountMicro),
  };
}
