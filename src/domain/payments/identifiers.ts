import type { Sql } from '../../db/index.js';
import type { SqlFragment } from './fulfilment.js';
import { unresolvedPayment } from './rows.js';

/**
 * The x402 `payment-identifier` ids (issue 27, `x402_payment_identifiers`): a client's
 * idempotency key, kept per payer with the payment it first came with and what that payment was
 * for (`request_digest`, ./paid-request.ts). The row is written by the statement that claims its
 * payment (./store.ts `claim`, ./completion.ts inline), so an id exists exactly when its payment
 * does; its primary key lets one of several concurrent requests with the same id through (the
 * others fail that statement whole, nothing written, and are answered from the winner's payment).
 */
export interface IdentifiedPayment {
  paymentId: string;
  requestDigest: string;
}

/** The constraint a second payment with a known (payer, id) breaks. */
const IDENTIFIER_KEY = 'x402_payment_identifiers_pkey';

/** True for the unique violation of an id already held (another request's claim won). */
export function isIdentifierTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string; constraintName?: string };
  return e.code === '23505' && (e.constraint_name ?? e.constraintName) === IDENTIFIER_KEY;
}

/** The payment an id of this payer first came with, if the id is known (and not yet pruned). */
export async function identifiedPayment(
  sql: Sql,
  payer: string,
  identifier: string,
): Promise<IdentifiedPayment | undefined> {
  const [row] = await sql<IdentifiedPayment[]>`
    select payment_id, request_digest from x402_payment_identifiers
    where payer = ${payer} and identifier = ${identifier}`;
  return row;
}

/**
 * Frees an id whose payment failed at settlement (`failed` is terminal: that authorization never
 * moved money and never will here), so a fresh authorization with the same id is run afresh. Only
 * while the id still points at that failed payment: a concurrent retry that took it first keeps it.
 */
export async function forgetFailedIdentifier(
  sql: Sql,
  payer: string,
  identifier: string,
  paymentId: string,
): Promise<void> {
  await sql`
    delete from x402_payment_identifiers i
    using x402_payments p
    where i.payer = ${payer} and i.identifier = ${identifier} and i.payment_id = ${paymentId}
      and p.id = i.payment_id and p.status = 'failed'`;
}

/**
 * THE insert of an id, for a CTE body: one row per row of `from` (a relation of the same
 * statement with the columns id, payer, resource, request_digest and valid_before of the payment),
 * or of the given values. No `on conflict`: an id held before fails the whole statement.
 */
export function identifierInsert(
  sql: Sql,
  identifier: string,
  from:
    | { rowsOf: 'ins' }
    | {
        paymentId: string;
        payer: string;
        resource: string;
        requestDigest: string;
        validBefore: Date;
        rowsOf: 'done';
      },
): SqlFragment {
  const values =
    'paymentId' in from
      ? sql`${from.payer}, ${identifier}, ${from.paymentId}::uuid, ${from.resource},
               ${from.requestDigest}, ${from.validBefore}::timestamptz from ${sql(from.rowsOf)}`
      : sql`payer, ${identifier}, id, resource, request_digest, valid_before from ${sql(from.rowsOf)}`;
  return sql`insert into x402_payment_identifiers (payer, identifier, payment_id, resource,
                                                   request_digest, valid_before)
        select ${values}`;
}

/**
 * Ids whose first payment's window closed more than `retentionSeconds` ago AND whose payment is
 * resolved (completed, released, or failed for good): forget them. An id whose payment is still
 * open (settling, pending, settled: an RPC outage, a completion that keeps failing; or failed at
 * settlement while its transfer may yet be mined, migration 370) is kept however old, so a retry
 * with a fresh signature can never start a second charge before the first resolves.
 */
export async function pruneIdentifiers(sql: Sql, retentionSeconds: number): Promise<number> {
  const pruned = await sql`
    delete from x402_payment_identifiers i
    using x402_payments p
    where p.id = i.payment_id
      and ${unresolvedPayment(sql)} is not true
      and i.valid_before < now() - make_interval(secs => ${retentionSeconds})`;
  return pruned.count;
}
