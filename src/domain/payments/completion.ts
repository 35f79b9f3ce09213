import { randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import type { Sql } from '../../db/index.js';
import { piece, Pieces, type Piece } from '../../db/pieces.js';
import type { InlineSettlement } from '../../x402/facilitator.js';
import type { VerifiedPayment } from '../../x402/guard.js';
import type { Fulfilment, SqlFragment } from './fulfilment.js';
import { identifierInsert } from './identifiers.js';
import { nonceInsert } from './nonces.js';
import { json, OPEN, paidContext, signedProof, type ClaimInput, type PaymentRow } from './rows.js';

/**
 * THE completing statement of a paid operation, in its two cases, from the same pieces:
 *
 *   inline (a facilitator whose ledger is in this database):
 *     pre → ledger_gate (the nonce claim) → ledger_transfer (the facilitator's) → paid
 *       → the operation's pieces → done (the payment inserted `completed`)
 *   stepwise (after `PaymentStore.claim` and a settle: HTTP facilitator, reconciler, retries):
 *     paid (the open claim, locked) → the operation's pieces → done (updated `completed`) → spent
 *
 * The operation's pieces (given `paid`) are the same objects in both: a purchase's are in
 * src/domain/orders/purchase-statement.ts, the listing fee's in
 * src/domain/listings/listing-statement.ts.
 */
export type Completing =
  | { claim: ClaimInput; settlement: InlineSettlement }
  | {
      row: PaymentRow;
      settlement: SettleResponse;
      /**
       * The request completing it answers with the result (its `answered_at` is set); false for
       * the reconciler's and recovery's completions, which answer nobody (migration 482).
       */
      answering: boolean;
      /**
       * A recheck's completion: only the row as it was read (`PaymentRow.version`). A claim
       * released and taken again since is a running request's, for its own operation and context
       * (they may differ from the read row's), and that request completes it.
       */
      asRead?: { version: string };
      /**
       * The request's `payment-identifier` id: put back if the claim was released meanwhile (a
       * release frees it), so the id keeps answering this payment and a fresh signature with it
       * is never charged again.
       */
      identifier?: string;
    };

export interface Completion {
  statement: SqlFragment;
  /** The payment's id (drawn here in the inline case, where the statement inserts it). */
  id: string;
  committed?: () => void;
}

// The whitespace after the comma before the operation's first piece (statements keep their text).
const OPERATION_LEAD = ' \n      ';

export function completion(sql: Sql, how: Completing, fulfil: Fulfilment): Completion {
  if ('claim' in how) {
    const { claim, settlement } = how;
    const p = claim.payment;
    const id = randomUUID();
    const { pieces, result, committed } = fulfil(sql, {
      paymentId: id,
      operation: claim.operation,
      resource: p.resource,
      payer: p.payer,
      chain: p.chain,
      network: p.requirement.network,
      asset: p.requirement.asset,
      payTo: p.requirement.payTo,
      amountMicro: p.amount,
      transaction: settlement.response.transaction,
      context: claim.context,
    });
    const recorded = Pieces.given()
      .then(precondition(sql, claim.condition?.(sql)))
      .then(nonceClaim(sql, p))
      .then(settlement.transfer(sql))
      .then(paidInline(sql, id))
      .join(pieces.leadingWith(OPERATION_LEAD))
      .then(recordInserted(sql, claim, settlement, result));
    // a payment-identifier id is recorded with its payment (an id held before fails it all)
    const statement = p.paymentIdentifier
      ? recorded.then(identified(sql, p.paymentIdentifier, claim, id))
      : recorded;
    return {
      id,
      committed,
      statement: sql`
      ${statement.with(sql)}
      select coalesce((select ok from pre), false) as claim_allowed,
             (select result_json from done) as result_json`,
    };
  }
  const { row, settlement, answering, asRead, identifier } = how;
  const { pieces, result, committed } = fulfil(sql, paidContext(row, settlement.transaction));
  const updated = Pieces.given()
    .then(paidOpen(sql, row.id, asRead))
    .join(pieces.leadingWith(OPERATION_LEAD))
    .then(recordUpdated(sql, settlement, result, answering))
    .then(respent(sql));
  const statement = identifier ? updated.then(reidentified(sql, identifier)) : updated;
  return {
    id: row.id,
    committed,
    statement: sql`
      ${statement.with(sql)}
      select result_json from done`,
  };
}

/** The caller's condition (e.g. the item is still sold on these terms), re-checked in the statement. */
function precondition(sql: Sql, condition: SqlFragment | undefined): Piece<'pre'> {
  return piece(
    'pre',
    [],
    sql`pre as (
        select (${condition ?? sql`true`}) as ok
      )`,
  );
}

/** The nonce's single-use row, only when `pre` holds; a nonce held before fails the statement. */
function nonceClaim(sql: Sql, p: VerifiedPayment): Piece<'ledger_gate', 'pre'> {
  return piece(
    'ledger_gate',
    ['pre'],
    sql`ledger_gate as (
        ${nonceInsert(sql, 'paid', p, { when: sql`(select ok from pre)`, onConflict: 'fail', returning: true })}
      )`,
  );
}

/** Inline: the payment to complete is the one this statement inserts, if the money moved. */
function paidInline(sql: Sql, id: string): Piece<'paid', 'ledger_transfer'> {
  return piece(
    'paid',
    ['ledger_transfer'],
    sql`paid as (
        select ${id}::uuid as id, 'settling'::text as status from ledger_transfer
      )`,
  );
}

/** Stepwise: the claimed payment, locked, while it is still open (else no row: nothing written). */
function paidOpen(sql: Sql, id: string, asRead?: { version: string }): Piece<'paid'> {
  // each clause on its own line, none when absent: the statement's text stays as it was
  const read = asRead
    ? sql`
          and xmin::text = ${asRead.version}`
    : sql``;
  return piece(
    'paid',
    [],
    sql`paid as (
        select id, status from x402_payments where id = ${id} and status = any(${OPEN})${read} for update
      )`,
  );
}

/** Inline: the payment recorded `completed` with its settlement and result. */
function recordInserted(
  sql: Sql,
  input: ClaimInput,
  settlement: InlineSettlement,
  result: SqlFragment,
): Piece<'done', 'paid'> {
  const p = input.payment;
  const tx = settlement.response.transaction;
  return piece(
    'done',
    ['paid'],
    sql`done as (
        insert into x402_payments (id, operation, resource, payer, nonce, network, asset, pay_to, amount_micro,
                                   valid_before, payload, context, status, transaction, settlement, result,
                                   request_digest, answered_at)
        select paid.id, ${input.operation}, ${p.resource}, ${p.payer}, ${p.nonce}, ${p.requirement.network},
               ${p.requirement.asset}, ${p.requirement.payTo}, ${p.amount}::bigint,
               ${p.validBefore}::timestamptz, ${json(sql, signedProof(p))}::jsonb,
               ${json(sql, input.context)}::jsonb, 'completed', ${tx},
               ${json(sql, settlement.response)}::jsonb, ${result}, ${input.requestDigest}, now()
        from paid
        returning result::text as result_json
      )`,
  );
}

/** Inline: the payment's `payment-identifier` id, kept per payer with what it paid for. */
function identified(
  sql: Sql,
  identifier: string,
  input: ClaimInput,
  paymentId: string,
): Piece<'identified', 'done'> {
  const p = input.payment;
  return piece(
    'identified',
    ['done'],
    sql`identified as (
        ${identifierInsert(sql, identifier, {
          paymentId,
          payer: p.payer,
          resource: p.resource,
          requestDigest: input.requestDigest,
          validBefore: p.validBefore,
          rowsOf: 'done',
        })}
      )`,
  );
}

/**
 * Stepwise: the claimed payment updated `completed` with its settlement and result (and answered,
 * when the request completing it answers).
 */
function recordUpdated(
  sql: Sql,
  settlement: SettleResponse,
  result: SqlFragment,
  answering: boolean,
): Piece<'done', 'paid'> {
  return piece(
    'done',
    ['paid'],
    sql`done as (
        update x402_payments p set status = 'completed', transaction = ${settlement.transaction},
          settlement = ${json(sql, settlement)}, result = ${result}, error_code = null,
          error_reason = null, answered_at = ${answering ? sql`now()` : sql`null`}, updated_at = now()
        from paid where p.id = paid.id
        returning p.id, p.payer, p.nonce, p.resource, p.valid_before, p.request_digest,
                  p.result::text as result_json, paid.status as was
      )`,
  );
}

/** Re-spends the nonce if a reconciler had released it meanwhile (money moved: it is used). */
function respent(sql: Sql): Piece<'spent', 'done'> {
  return piece(
    'spent',
    ['done'],
    sql`spent as (
        ${nonceInsert(sql, 'paid', { rowsOf: 'done' }, { when: sql`was = 'released'`, onConflict: 'do nothing' })}
      )`,
  );
}

/**
 * Puts the request's `payment-identifier` id back if the claim had been released meanwhile (the
 * release deleted it; money moved: the id answers this payment again). An id taken since by
 * another payment keeps it.
 */
function reidentified(sql: Sql, identifier: string): Piece<'reidentified', 'done'> {
  return piece(
    'reidentified',
    ['done'],
    sql`reidentified as (
        insert into x402_payment_identifiers (payer, identifier, payment_id, resource,
                                              request_digest, valid_before)
        select payer, ${identifier}, id, resource, request_digest, valid_before from done
        where was = 'released'
        on conflict do nothing
      )`,
  );
}
