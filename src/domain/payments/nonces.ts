import type { Sql } from '../../db/index.js';
import type { SqlFragment } from './fulfilment.js';

/**
 * Where the values of a nonce row come from: one authorization's (bound parameters; `validBefore`
 * as a Date, or as unix seconds the way an identity proof carries it), or every row of an earlier
 * CTE of the same statement, which has the columns payer, nonce, resource and valid_before.
 */
export type NonceValues =
  | { payer: string; nonce: string; resource: string; validBefore: Date | number }
  | { rowsOf: 'done' | 'settled' };

interface NonceInsertOptions {
  /** A boolean SQL expression: when false, no row is inserted. */
  when?: SqlFragment;
  /**
   * On a nonce already held: `'do nothing'` inserts nothing (no row returned), `'fail'` fails the
   * whole statement (the one-statement purchase relies on that to write nothing).
   */
  onConflict: 'do nothing' | 'fail';
  /** Return `1` per inserted row: for a CTE that later writes depend on, or for the caller. */
  returning?: boolean;
}

/**
 * THE insert into `x402_nonces` (the single-use record), as a fragment for a statement or a CTE
 * body. Every claim of a nonce, paid or identity, goes through here.
 */
export function nonceInsert(
  sql: Sql,
  kind: 'paid' | 'identity',
  values: NonceValues,
  { when, onConflict, returning = false }: NonceInsertOptions,
): SqlFragment {
  const kindValue = kind === 'paid' ? sql`'paid'` : sql`'identity'`;
  const row =
    'rowsOf' in values
      ? sql`payer, nonce, ${kindValue}, resource, valid_before from ${sql(values.rowsOf)}`
      : sql`${values.payer}, ${values.nonce}, ${kindValue}, ${values.resource}, ${
          values.validBefore instanceof Date
            ? sql`${values.validBefore}::timestamptz`
            : sql`to_timestamp(${values.validBefore})`
        }`;
  // each clause on its own line, none when absent: the purchase statement's text stays as it was
  const where = when
    ? sql`
        where ${when}`
    : sql``;
  const conflict =
    onConflict === 'do nothing'
      ? sql`
        on conflict do nothing`
      : sql``;
  const inserted = returning
    ? sql`
        returning 1`
    : sql``;
  return sql`insert into x402_nonces (payer, nonce, kind, resource, valid_before)
        select ${row}${where}${conflict}${inserted}`;
}
