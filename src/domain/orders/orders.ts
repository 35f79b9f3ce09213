import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { piece, type Piece } from '../../db/pieces.js';
import type { Chain } from '../../wire/chains.js';
import type { PaidContext } from '../payments/fulfilment.js';
import { humanDuration, invalidLink, signLink, verifyLink } from '../links/signed-links.js';
import type { BuyerOrders, OrderLinks } from '../../wire/orders.js';
import { toUsdc, type Micro } from '../../wire/money.js';

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

/** The order of a purchase (spec 3.5): written once, for the row of `paid`, to the buyer `agent`. */
export function orderPlacement(
  sql: Db,
  ctx: PaidContext<AcquireContext>,
  /** A remembered buyer must be found: no `agent` row makes buyer_id null, which aborts it all. */
  buyerMustExist: boolean,
): Piece<'placed', 'paid' | 'agent'> {
  const c = ctx.context;
  const buyerId = buyerMustExist ? sql`(select id from agent)` : sql`agent.id`;
  const from = buyerMustExist ? sql`paid` : sql`paid cross join agent`;
  return piece(
    'placed',
    ['paid', 'agent'],
    sql`placed as (
        insert into orders (id, payment_id, item_id, buyer_id, seller_id, chain, network, asset, pay_to, payer,
                            amount_micro, transaction)
        select ${c.orderId}::uuid, ${ctx.paymentId}::uuid, ${c.itemId}::uuid, ${buyerId}, ${c.sellerId}::uuid,
               ${ctx.chain}, ${ctx.network}, ${ctx.asset}, ${ctx.payTo}, ${ctx.payer}, ${ctx.amountMicro}::bigint,
               ${ctx.transaction}
        from ${from}
        returning id
      )`,
  );
}

/** The legal acceptance audit row of the order `placed` (spec 4.1): the versions the buyer accepted. */
export function legalAudit(sql: Db, ctx: PaidContext<AcquireContext>): Piece<'audited', 'placed'> {
  const c = ctx.context;
  return piece(
    'audited',
    ['placed'],
    sql`audited as (
        insert into legal_acceptances (order_id, payer, policy_version, policy_url, license_version, license_url, accepted_at)
        select id, ${ctx.payer}, ${c.legal.policyVersion}, ${c.legal.policyUrl}, ${c.legal.licenseVersion},
               ${c.legal.licenseUrl}, ${c.acceptedAt}::timestamptz
        from placed
      )`,
  );
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

/**
 * The completed order a signed download or invoice link names, once its signature and expiry
 * hold (403 `invalid_link` / `link_expired`). A link naming no completed order answers as a bad
 * signature, so that a link's answer never tells whether an order id exists. `refresh` says where
 * a fresh link of an order comes from in this deployment's revision.
 */
export async function orderOfLink(
  sql: Db,
  key: Buffer,
  link: { kind: 'download' | 'invoice'; orderId: string; exp?: string; sig?: string },
  refresh: (orderId: string) => string,
  nowMs = Date.now(),
): Promise<OrderRecord> {
  const order = await findCompletedOrder(sql, link.orderId);
  if (!order) throw invalidLink();
  verifyLink(
    key,
    { kind: link.kind, id: order.id, fileSha256: order.archiveSha256 },
    link.exp,
    link.sig,
    nowMs,
    refresh(order.id),
  );
  return order;
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
      message:
        "no completed order with this id belongs to the caller (the signing wallet, or in Revision A the API key's account)",
    });
  }
  return order;
}

/**
 * The completed orders of a buyer, newest first (identity route `GET /api/v1/orders`): what was
 * bought, when, for how much and where it settled; never links (the order route signs fresh ones).
 */
export async function buyerOrders(
  sql: Db,
  buyerId: string,
  q: { item_id?: string | undefined; limit: number; offset: number },
): Promise<BuyerOrders> {
  const filter = q.item_id ? sql`and o.item_id = ${q.item_id}` : sql``;
  const [{ total } = { total: 0 }] = await sql<{ total: number }[]>`
    select count(*)::int as total from orders o where o.buyer_id = ${buyerId} ${filter}`;
  const rows = await sql<
    {
      id: string;
      itemId: string;
      title: string;
      amount: Micro;
      chain: Chain;
      network: string;
      transaction: string;
      completedAt: Date;
    }[]
  >`
    select o.id, o.item_id, i.title, o.amount_micro as amount, o.chain, o.network, o.transaction,
           o.completed_at
    from orders o join items i on i.id = o.item_id
    where o.buyer_id = ${buyerId} ${filter}
    order by o.completed_at desc, o.id limit ${q.limit} offset ${q.offset}`;
  return {
    orders: rows.map((r) => ({
      order_id: r.id,
      item_id: r.itemId,
      title: r.title,
      price_usdc: toUsdc(r.amount),
      chain: r.chain,
      network: r.network,
      transaction: r.transaction,
      completed_at: r.completedAt.toISOString(),
    })),
    pagination: { limit: q.limit, offset: q.offset, total },
  };
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
