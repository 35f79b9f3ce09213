import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { piece, Pieces } from '../../db/pieces.js';
import { agentProvisioning, type PayoutAddressing } from '../accounts/accounts.js';
import type { Fulfilment, PaidContext, SqlFragment } from '../payments/fulfilment.js';
import { listingWrites, type ListingContext } from './listings.js';

/**
 * ONE paid listing is ONE statement, read top to bottom, each piece from its owner:
 *
 *   pre, ledger_gate, ledger_transfer, paid   as for a purchase     payments/completion.ts
 *   agent      the seller, provisioned on its first listing          accounts/accounts.ts
 *   listed     the item `pending_scan`                               listings/listings.ts
 *   refused    or `rejected` when identical bytes were listed meanwhile
 *   queued     its scan job
 *   fee        the listing fee record                                this file
 *   done       the payment recorded `completed`                     payments/completion.ts
 *
 * The fulfilment of the listing fee: provisions the seller (payout address on every chain, all
 * chains accepted), creates the item in `pending_scan`, queues its scan and records the fee. The
 * archive bytes are already in the blob store. If identical bytes were listed concurrently by
 * someone else, the listing is created `rejected` with `duplicate_content` (the fee is kept, as
 * for any refused listing).
 */
export function listingFulfilment(
  config: Config,
  payoutAddressing: PayoutAddressing,
): Fulfilment<ListingContext> {
  return (sql, ctx) => {
    const c = ctx.context;
    const pieces = Pieces.given('paid')
      .then(agentProvisioning(sql, ctx.payer, payoutAddressing))
      .join(listingWrites(sql, config, c).leadingWith('\n      \n      '))
      .then(listingFee(sql, ctx), '\n      ');
    return { pieces, result: listingResult(sql, c) };
  };
}

/** The fee's record, for the listing created (`listed` or `refused`). */
function listingFee(sql: Db, ctx: PaidContext<ListingContext>) {
  return piece(
    'fee',
    ['listed', 'refused'],
    sql`fee as (
        insert into listing_fees (item_id, payment_id, payer, chain, network, asset, pay_to, amount_micro, transaction)
        select id, ${ctx.paymentId}::uuid, ${ctx.payer}, ${ctx.chain}, ${ctx.network}, ${ctx.asset}, ${ctx.payTo},
               ${ctx.amountMicro}::bigint, ${ctx.transaction}
        from (select id from listed union all select id from refused) as created
      )`,
  );
}

/** The listing's answer as jsonb (reads the piece `listed` of `listingWrites`). */
export function listingResult(sql: Db, c: ListingContext): SqlFragment {
  return sql`jsonb_build_object(
      'item_id', ${c.item_id}::text,
      'status', case when exists (select 1 from listed) then 'pending_scan' else 'rejected' end)`;
}

/**
 * Revision A's keyed listing (no fee) as one statement: the same listing pieces for the key's
 * agent, with `paid` a constant row. Answers `{ result }`, the listing's answer as JSON text.
 */
export function keyedListingStatement(
  sql: Db,
  config: Config,
  sellerId: string,
  context: ListingContext,
): SqlFragment {
  const statement = Pieces.given()
    .then(piece('paid', [], sql`paid as (select 1)`))
    .then(piece('agent', [], sql`agent as (select id from agents where id = ${sellerId}::uuid)`))
    .join(listingWrites(sql, config, context).leadingWith('\n    \n      '));
  return sql`
    ${statement.with(sql)}
    select ${listingResult(sql, context)}::text as result`;
}
