import { BoundedCache } from '../../bounded-cache.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { agentProvisioning, type PayoutAddressing } from '../accounts/accounts.js';
import type { Chain } from '../../wire/chains.js';
import type { Fulfilment } from '../payments/fulfilment.js';
import { humanDuration, signLink } from '../links/signed-links.js';
import type { OrderLinks } from '../../wire/orders.js';

/** What an acquire claim stores so that the order can be written later, even by the reconciler. */
export interface AcquireContext extends Record<string, unknown> {
  orderId: string;
  itemId: string;
  sellerId: string;
  /** Legal versions and URLs current at purchase time, and when the buyer accepted them. */
  legal: { policyVersion: string; policyUrl: string; licenseVersion: string; licenseUrl: string };
  acceptedAt: string;
  /**
   * Revision A keyed purchase (`POST /api/v1/buy`): the order belongs to the key's agent, whoever
   * signed the payment. Absent: the payer's agent, provisioned by a first purchase.
   */
  buyerId?: string;
}

export interface AcquireResult extends Record<string, unknown> {
  orderId: string;
  /** The buyer's account as the purchase found or created it (Revision A `buyer_account`). */
  buyer?: { created: boolean; username: string };
}

/**
 * The fulfilment of a purchase (spec 3.5, 4.1): provisions the buyer (a first purchase creates the
 * account; a keyed purchase names its agent), writes the completed order and the legal acceptance
 * audit row, in the statement that completes the payment (src/domain/payments/fulfilment.ts).
 * Exactly once per payment.
 *
 * A buyer whose purchase committed before is remembered, and its next purchase reads its agent
 * instead of carrying the provisioning writes (which cost a statement their set-up even when they
 * write nothing). The memory only picks the statement's shape, never its outcome: an entry is
 * taken when used and put back when that purchase commits, and a remembered buyer whose wallet no
 * longer names an agent makes the order's buyer null, which aborts the statement whole; the
 * processor then takes its stepwise path, whose fulfilment (the entry gone) provisions as usual.
 */
export function purchaseFulfilment(
  payoutAddressing: PayoutAddressing,
  maxKnownBuyers = 10_000,
): Fulfilment<AcquireContext> {
  let addressing: PayoutAddressing | undefined;
  const knownBuyers = new Set<string>();
  return (sql, ctx) => {
    const c = ctx.context;
    const payer = ctx.payer.toLowerCase();
    const known = !c.buyerId && knownBuyers.delete(payer);
    addressing ??= remembered(payoutAddressing);
    const buyer = c.buyerId
      ? sql`agent as (
          select id, username, false as created from agents
          where id = ${c.buyerId}::uuid and exists (select 1 from paid))`
      : known
        ? sql`agent as (
            select a.id, a.username, false as created
            from wallet_bindings b join agents a on a.id = b.agent_id
            where b.address = ${payer} and exists (select 1 from paid))`
        : agentProvisioning(sql, ctx.payer, addressing);
    // a remembered buyer must be found: no agent makes buyer_id null and aborts the statement
    const buyerId = known ? sql`(select id from agent)` : sql`agent.id`;
    const from = known ? sql`paid` : sql`paid cross join agent`;
    const writes = sql`
      ${buyer},
      placed as (
        insert into orders (id, payment_id, item_id, buyer_id, seller_id, chain, network, asset, pay_to, payer,
                            amount_micro, transaction)
        select ${c.orderId}::uuid, ${ctx.paymentId}::uuid, ${c.itemId}::uuid, ${buyerId}, ${c.sellerId}::uuid,
               ${ctx.chain}, ${ctx.network}, ${ctx.asset}, ${ctx.payTo}, ${ctx.payer}, ${ctx.amountMicro}::bigint,
               ${ctx.transaction}
        from ${from}
        returning id
      ), audited as (
        insert into legal_acceptances (order_id, payer, policy_version, policy_url, license_version, license_url, accepted_at)
        select id, ${ctx.payer}, ${c.legal.policyVersion}, ${c.legal.policyUrl}, ${c.legal.licenseVersion},
               ${c.legal.licenseUrl}, ${c.acceptedAt}::timestamptz
        from placed
      )`;
    const result = sql`jsonb_build_object('orderId', ${c.orderId}::text, 'buyer',
      (select jsonb_build_object('created', created, 'username', username) from agent limit 1))`;
    const committed = () => {
      if (c.buyerId) return;
      if (knownBuyers.size >= maxKnownBuyers) knownBuyers.clear();
      knownBuyers.add(payer);
    };
    return { writes, result, committed };
  };
}

/**
 * The buyer's payout addresses ride along with every purchase (they are written only when the
 * purchase creates the account), and deriving them costs two Keccak hashes per chain: a repeat
 * buyer's are remembered (they depend on nothing but the address and the chain).
 */
function remembered(addressing: PayoutAddressing): PayoutAddressing {
  const known = new BoundedCache<string, string>(4096);
  return {
    ...addressing,
    addressOf: (seller, chain) =>
      known.get(`${chain}:${seller}`, () => addressing.addressOf(seller, chain)),
  };
}

export interface OrderRecord {
  id: string;
  itemId: string;
  buyerId: string;
  sellerId: string;
  chain: Chain;
  network: string;
  asset: string;
  payTo: string;
  payer: string;
  amountMicro: number;
  transaction: string;
  completedAt: Date;
  itemTitle: string;
  fileName: string;
  compression: 'zip' | 'tar.gz';
  archiveKey: string;
  archiveSha256: string;
  archiveSize: number;
  sellerUsername: string;
  buyerUsername: string;
  policyVersion: string;
  policyUrl: string;
  licenseVersion: string;
  licenseUrl: string;
  acceptedAt: Date;
}

/** A completed order with everything links, downloads and invoices need. */
export async function findCompletedOrder(
  sql: Db,
  orderId: string,
): Promise<OrderRecord | undefined> {
  const [row] = await sql<OrderRecord[]>`
    select o.id, o.item_id, o.buyer_id, o.seller_id, o.chain, o.network, o.asset, o.pay_to, o.payer,
           o.amount_micro, o.transaction, o.completed_at,
           i.title as item_title, i.file_name, i.compression, i.archive_key, i.archive_sha256, i.archive_size,
           s.username as seller_username, b.username as buyer_username,
           l.policy_version, l.policy_url, l.license_version, l.license_url, l.accepted_at
    from orders o
    join items i on i.id = o.item_id
    join agents s on s.id = o.seller_id
    join agents b on b.id = o.buyer_id
    join legal_acceptances l on l.order_id = o.id
    where o.id = ${orderId} and o.status = 'completed'`;
  return row;
}

/** The buyer's own completed order, or 404 (absence and foreign ownership look the same). */
export async function findBuyerOrder(
  sql: Db,
  orderId: string,
  buyerId: string,
): Promise<OrderRecord> {
  const order = await findCompletedOrder(sql, orderId);
  if (!order || order.buyerId !== buyerId) {
    throw new AppError('order_not_found', {
      message: 'no completed order with this id belongs to the signing wallet',
    });
  }
  return order;
}

export function orderLinks(
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'SIGNED_URL_TTL_SECONDS'>,
  key: Buffer,
  order: { id: string; archiveSha256: string },
): OrderLinks {
  const ttl = config.SIGNED_URL_TTL_SECONDS;
  const target = { id: order.id, fileSha256: order.archiveSha256 };
  return {
    download_url: signLink(key, config.PUBLIC_BASE_URL, { kind: 'download', ...target }, ttl),
    invoice_url: signLink(key, config.PUBLIC_BASE_URL, { kind: 'invoice', ...target }, ttl),
    expires_in: humanDuration(ttl),
  };
}
