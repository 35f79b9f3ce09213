import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Sql } from '../../db/index.js';
import type { VerifiedPayment } from '../../x402/guard.js';
import type { JsonObject, SqlFragment } from './fulfilment.js';
import type { PaymentRow } from './rows.js';

/** How the runtime sets the processor up. */
export interface ProcessorOptions {
  retryAfterSeconds: number;
  /** Age after which a `settling` claim counts as abandoned by a dead request. */
  staleSeconds: number;
  /**
   * How long after `validBefore` (our clock) a remote facilitator's transfer may still be mined
   * (X402_CHAIN_CLOCK_GRACE_SECONDS).
   */
  chainClockGraceSeconds: number;
  logger: Logger;
  /** How long a duplicate request waits for the first one's outcome. */
  duplicateWaitMs?: number;
  /**
   * Embedded only (`Database.openedAt`): claims last written before this instant, on the
   * database's clock, belong to a process that is gone (only one process uses an embedded
   * database), so they are resolved at once, as stale ones are, instead of after `staleSeconds`.
   * Unset on Postgres, where another replica's young claim may belong to a request still running.
   */
  orphanedBefore?: Date;
}

/** A paid operation as its caller asks for it (`PaymentProcessor.run`). */
export interface RunInput<C extends JsonObject> {
  operation: string;
  payment: VerifiedPayment;
  context: C;
  /** Extra fields for the 409 payment_settlement_pending body (e.g. the reserved order id). */
  pendingDetails?: (context: C) => JsonObject;
  /**
   * Where the owner gets fresh links of what a spent authorization paid for, for the message of
   * its replay after the window (the route and credential differ per contract revision).
   */
  freshLinks?: string;
  /**
   * The answer mints what only the payer may hold (a purchase's download links). Everything in a
   * replay of the same signed request is public once its transfer is broadcast, so such a replay
   * gets the answer only with its first request's payment identifier, a fresh authorization of the
   * payer, or as the payment's first answer (`PaymentProcessor`'s `resume`). Otherwise (a listing
   * fee, whose request binds archive bytes the chain never shows) a replay within the window is
   * answered as its first request was.
   */
  answerMintsLinks?: boolean;
  /**
   * A boolean SQL expression re-checked inside the claim statement (e.g. the item is still sold
   * on these terms): when false nothing is claimed, settled or written and `run` throws
   * `ClaimConditionFailed`, so the caller can answer from fresh data. Built with the tag of the
   * statement it joins (the completing one records its fragments: src/db/statement.ts).
   */
  claimCondition?: (sql: Sql) => SqlFragment;
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
        amount_micro: p.amount,
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

/** Whether a stored claim was made by the same request as `input` (see `requestDigest`). */
export function sameRequest(
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
    row.amountMicro === p.amount &&
    row.payTo.toLowerCase() === p.requirement.payTo.toLowerCase() &&
    row.network === p.requirement.network
  );
}
