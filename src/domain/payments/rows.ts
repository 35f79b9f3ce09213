import type postgres from 'postgres';
import type { Db, Sql } from '../../db/index.js';
import type { VerifiedPayment } from '../../x402/guard.js';
import { chainOfNetwork } from '../../wire/chains.js';
import type { JsonObject, PaidContext, SqlFragment } from './fulfilment.js';

/**
 * A payment row (`x402_payments`) as every payment statement reads and writes it.
 *
 * Payment states: `settling` (claimed, settle in flight) → `completed` (settled and fulfilled), or
 * `settled` (money moved, fulfilment still to run), `pending` (broadcast, outcome unknown),
 * `failed` (settlement refused; terminal once `failureFinalAt` is set, see
 * `SettlementRecheck.settleFailed`), `released` (nothing moved; the nonce is free again).
 */
export type PaymentStatus =
  'settling' | 'pending' | 'settled' | 'completed' | 'failed' | 'released';

export interface PaymentRow {
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
  status: PaymentStatus;
  transaction: string | null;
  contextJson: string;
  settlementJson: string | null;
  resultJson: string | null;
  errorCode: string | null;
  errorReason: string | null;
  /** SHA-256 of what the authorization was used for (`PaymentProcessor.requestDigest`); null before migration 210. */
  requestDigest: string | null;
  /**
   * `failed` at settlement: when the failure was found final (the window closed, the authorization
   * unused); null while the money may still move (migration 370).
   */
  failureFinalAt: Date | null;
  /** When the facilitator or the chain was last asked about it (`markRechecked`; migration 370). */
  recheckedAt: Date | null;
  /**
   * When a request was first answered with the result (an order's links; migration 482): a replay
   * of the same signed request, public once broadcast, gets the result again only while null
   * (`PaymentProcessor`'s `resume`).
   */
  answeredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * The row's version as it was read: Postgres's `xmin`, which every write of the row changes. A
   * recheck's transitions apply only to the row as it read it (`PaymentStore.release`,
   * `markRechecked`, a recheck's completion): a claim released and taken again meanwhile by a
   * buyer's retry is that retry's, whatever its status says.
   */
  version: string;
}

/** States from which a settled payment may still be completed. */
export const OPEN: PaymentStatus[] = ['settling', 'pending', 'released', 'settled'];

/** `claim` found the caller's precondition false: nothing was claimed or written. */
export class ClaimConditionFailed extends Error {
  constructor() {
    super('claim condition no longer holds');
  }
}

export interface ClaimInput {
  operation: string;
  payment: VerifiedPayment;
  context: JsonObject;
  /** A boolean SQL expression re-checked inside the claim statement, built with its tag. */
  condition?: (sql: Sql) => SqlFragment;
  /** What the authorization is used for (hex SHA-256): a replay must match it. */
  requestDigest: string;
}

export const json = (sql: Sql, v: unknown) => sql.json(v as postgres.JSONValue);

/**
 * What a payment row keeps of the signed payload (`payload`): the proof, i.e. the EIP-3009
 * authorization exactly as the payer sent it and its signature. The rest of the x402 payload is
 * already the row's own columns: `accepted` is pinned to the requirement this server issued
 * (network, asset, pay_to, amount_micro; the item bound in `extra` is in `context`) and `resource`
 * is `resource`. Keeping it once also keeps the row under Postgres's TOAST threshold (about 2 KB),
 * so a purchase no longer pays for a compression attempt on every insert.
 */
export function signedProof(p: VerifiedPayment): unknown {
  return p.payload.payload;
}

export function paidContext(r: PaymentRow, transaction = r.transaction ?? ''): PaidContext {
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
    transaction,
    context: JSON.parse(r.contextJson) as JsonObject,
  };
}

/** A payment failed at settlement whose transfer may still be mined (migration 370). */
export const undecidedFailure = (sql: Db) =>
  sql`(status = 'failed' and error_code = 'payment_settlement_failed' and failure_final_at is null)`;

/**
 * A payment not yet resolved: money may have moved without its order (claimed, pending, settled
 * but not completed, or failed at settlement while its transfer may still be mined). What the
 * reconciler works through, what operators are shown and alerted on, and what keeps an upload's
 * archive: one definition for all of them.
 */
export const unresolvedPayment = (sql: Db) =>
  sql`(status in ('settling', 'pending', 'settled') or ${undecidedFailure(sql)})`;
