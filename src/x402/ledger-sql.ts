import type { Sql } from '../db/index.js';
import { piece, Pieces, type Piece } from '../db/pieces.js';

/**
 * The dev ledger's SQL (the local facilitator's "chain"): one transfer and its two balance moves,
 * as a piece of whichever statement runs it: its own (`ledgerTransfer`) or the purchase's
 * (src/domain/orders/purchase-statement.ts).
 */

/** One transfer on the dev ledger (addresses lower-case, value in USDC base units). */
export interface LedgerTransfer {
  network: string;
  asset: string;
  payer: string;
  payTo: string;
  value: number;
  nonce: string;
  transaction: string;
  status: 'pending' | 'confirmed';
}

/**
 * THE ledger statement: records the transfer (its unique nonce is the token's authorization
 * state) and, when confirmed, moves both balances, all in ONE statement, so it is atomic without a
 * transaction. Balances are created on first use (start balance) by upsert; the proposed new row
 * carries the balance as read, so a new payer's overdraft violates the CHECK like an existing
 * one's, and an overdraft aborts everything, transfer included. Returns false when the nonce was
 * already used. Every settle path uses it, and so does the benchmark's independent reference
 * route (the one piece of payment code the two sides share).
 */
export async function ledgerTransfer(
  sql: Sql,
  startBalanceMicro: number,
  t: LedgerTransfer,
): Promise<boolean> {
  const statement = Pieces.given()
    .then(piece('ledger_gate', [], sql`ledger_gate as (select 1)`))
    .then(ledgerWrites(sql, startBalanceMicro, t, true));
  const [row] = await sql<{ transfers: number }[]>`
    ${statement.with(sql)}
    select (select count(*) from ledger_transfer)::int as transfers`;
  return row!.transfers === 1;
}

/**
 * The ledger writes as the piece `ledger_transfer` over the relation `ledger_gate` (see
 * `InlineSettlement`): `ledger_debit` and `ledger_credit` are its own. With `reuseFailed`, a nonce
 * whose earlier transfer failed may be used again and any other used nonce leaves
 * `ledger_transfer` empty; without it, a used nonce is a unique violation.
 */
export function ledgerWrites(
  sql: Sql,
  startBalanceMicro: number,
  t: LedgerTransfer,
  reuseFailed: boolean,
): Piece<'ledger_transfer', 'ledger_gate'> {
  const start = startBalanceMicro;
  const { network, asset, payer, payTo, value, nonce, transaction, status } = t;
  const onConflict = reuseFailed
    ? sql`on conflict (network, asset, payer, nonce) do update
          set transaction = excluded.transaction, status = excluded.status, created_at = now()
          where dev_ledger_transfers.status = 'failed'`
    : sql``;
  const writes = sql`
    ledger_transfer as (
      insert into dev_ledger_transfers (transaction, network, asset, payer, pay_to, amount_micro, nonce, status)
      select ${transaction}, ${network}, ${asset}, ${payer}, ${payTo}, ${value}::bigint, ${nonce}, ${status}
      from ledger_gate
      ${onConflict}
      returning status
    ), ledger_debit as (
      insert into dev_ledger_balances (network, address, balance_micro)
      select ${network}, ${payer},
             coalesce((select balance_micro from dev_ledger_balances where network = ${network} and address = ${payer}),
                      ${start}::bigint) - ${value}::bigint
      from ledger_transfer where status = 'confirmed'
      on conflict (network, address) do update set balance_micro = dev_ledger_balances.balance_micro - ${value}::bigint
      returning 1
    ), ledger_credit as (
      insert into dev_ledger_balances (network, address, balance_micro)
      select ${network}, ${payTo},
             coalesce((select balance_micro from dev_ledger_balances where network = ${network} and address = ${payTo}),
                      ${start}::bigint) + ${value}::bigint
      from ledger_transfer where status = 'confirmed'
      on conflict (network, address) do update set balance_micro = dev_ledger_balances.balance_micro + ${value}::bigint
      returning 1
    )`;
  return piece('ledger_transfer', ['ledger_gate'], writes);
}
