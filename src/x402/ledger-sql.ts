import type { Db, Sql } from '../db/index.js';
import { piece, Pieces, type Piece } from '../db/pieces.js';
import type { ExactEvmPayload } from './eip3009.js';
import type { PaymentNetwork } from './networks.js';

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
 * transaction. Balances are created on first use by upsert (the start balance, or 0 for a payout
 * address: `dev_ledger_opening`, migration 479, read only when the row is absent); the proposed new row
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
                      dev_ledger_opening(${network}, ${payer}, ${start}::bigint)) - ${value}::bigint
      from ledger_transfer where status = 'confirmed'
      on conflict (network, address) do update set balance_micro = dev_ledger_balances.balance_micro - ${value}::bigint
      returning 1
    ), ledger_credit as (
      insert into dev_ledger_balances (network, address, balance_micro)
      select ${network}, ${payTo},
             coalesce((select balance_micro from dev_ledger_balances where network = ${network} and address = ${payTo}),
                      dev_ledger_opening(${network}, ${payTo}, ${start}::bigint)) + ${value}::bigint
      from ledger_transfer where status = 'confirmed'
      on conflict (network, address) do update set balance_micro = dev_ledger_balances.balance_micro + ${value}::bigint
      returning 1
    )`;
  return piece('ledger_transfer', ['ledger_gate'], writes);
}

/** The payer would go below zero: nothing was recorded. */
export class InsufficientFunds extends Error {}

/**
 * A transfer to oneself (payer = pay_to), which the one-statement form cannot express (both
 * balance upserts would hit one row): the transfer and the balance move in one transaction.
 * False when the nonce was already used. Throws InsufficientFunds on an overdraft.
 */
export async function ledgerTransferToSelf(
  sql: Sql,
  startBalanceMicro: number,
  t: LedgerTransfer,
): Promise<boolean> {
  const { network, asset, payer, value, nonce, transaction, status } = t;
  return sql.begin(async (tx) => {
    const [row] = await tx`
        insert into dev_ledger_transfers (transaction, network, asset, payer, pay_to, amount_micro, nonce, status)
        values (${transaction}, ${network}, ${asset}, ${payer}, ${payer}, ${value}, ${nonce}, ${status})
        on conflict (network, asset, payer, nonce) do update
          set transaction = excluded.transaction, status = excluded.status, created_at = now()
          where dev_ledger_transfers.status = 'failed'
        returning 1 as ok`;
    if (!row) return false;
    if (status === 'confirmed') await move(tx, startBalanceMicro, network, payer, payer, value);
    return true;
  });
}

/** Resolves a transfer left pending (a fault): the "chain" confirms it, moving the money, or drops it. */
export async function resolveLedgerPending(
  sql: Sql,
  startBalanceMicro: number,
  transaction: string,
  outcome: 'confirmed' | 'failed',
): Promise<void> {
  await sql.begin(async (tx) => {
    const [t] = await tx<{ network: string; payer: string; payTo: string; amountMicro: number }[]>`
        update dev_ledger_transfers set status = ${outcome}
        where transaction = ${transaction} and status = 'pending'
        returning network, payer, pay_to, amount_micro`;
    if (t && outcome === 'confirmed')
      await move(tx, startBalanceMicro, t.network, t.payer, t.payTo, t.amountMicro);
  });
}

async function move(
  tx: Db,
  start: number,
  network: string,
  from: string,
  to: string,
  value: number,
): Promise<void> {
  await tx`
      insert into dev_ledger_balances (network, address, balance_micro)
      values (${network}, ${from}, dev_ledger_opening(${network}, ${from}, ${start}::bigint)),
             (${network}, ${to}, dev_ledger_opening(${network}, ${to}, ${start}::bigint))
      on conflict do nothing`;
  const [debited] = await tx`
      update dev_ledger_balances set balance_micro = balance_micro - ${value}
      where network = ${network} and address = ${from} and balance_micro >= ${value}
      returning 1 as ok`;
  if (!debited) throw new InsufficientFunds();
  await tx`
      update dev_ledger_balances set balance_micro = balance_micro + ${value}
      where network = ${network} and address = ${to}`;
}

/** The ledger transfer an exact-EVM authorization asks for (checked by `check`). */
export function transferOf(
  c: { net: PaymentNetwork; exact: ExactEvmPayload; payer: string },
  transaction: string,
  status: LedgerTransfer['status'],
): LedgerTransfer {
  const auth = c.exact.authorization;
  return {
    network: c.net.network,
    asset: c.net.asset,
    payer: c.payer,
    payTo: auth.to.toLowerCase(),
    value: Number(auth.value),
    nonce: auth.nonce,
    transaction,
    status,
  };
}
