import type { Db } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { toUsdc, type Micro } from '../../wire/money.js';
import { LISTED } from './listings.js';
import { ownerFindings } from '../../scan/findings.js';
import type { Finding } from '../../scan/types.js';
import {
  ITEM_STATUSES,
  type ItemStatus,
  type SellerItems,
  type SellerItemStatus,
} from '../../wire/listings.js';

/** The seller's side of listings (spec 4.3): inventory, status of one item, delete. */

/** All non-purged rows of one seller, newest first (spec 4.3 `GET /api/v1/seller/items`). */
export async function sellerItems(
  sql: Db,
  sellerId: string,
  q: { status?: ItemStatus; limit: number; offset: number },
): Promise<SellerItems> {
  const filter = q.status ? sql`and status = ${q.status}` : sql``;
  const [{ total } = { total: 0 }] = await sql<{ total: number }[]>`
    select count(*)::int as total from items where seller_id = ${sellerId} and purged_at is null ${filter}`;
  const rows = await sql<
    {
      id: string;
      status: ItemStatus;
      statusReason: string;
      title: string;
      techStack: string;
      price: Micro;
      createdAt: Date;
      deletedAt: Date | null;
    }[]
  >`
    select id, status, status_reason, title, tech_stack, price_micro as price, created_at, deleted_at
    from items where seller_id = ${sellerId} and purged_at is null ${filter}
    order by created_at desc, id limit ${q.limit} offset ${q.offset}`;
  return {
    items: rows.map((r) => ({
      item_id: r.id,
      status: r.status,
      status_reason: r.statusReason,
      title: r.title,
      tech_stack: r.techStack,
      prices: { USDC: toUsdc(r.price) },
      created_at: r.createdAt.toISOString(),
      deleted_at: r.deletedAt ? r.deletedAt.toISOString() : null,
    })),
    pagination: { limit: q.limit, offset: q.offset, total },
    allowed_statuses: [...ITEM_STATUSES],
  };
}

/**
 * Owner view of one item, hidden states included; 404 for anyone else. A rejected listing carries
 * the findings of the scan attempt that rejected it (rule, kind, file, line: ownerFindings), so the
 * seller learns what to fix; the public status and reasons stay compact.
 */
export async function sellerItemStatus(
  sql: Db,
  sellerId: string,
  itemId: string,
): Promise<SellerItemStatus> {
  const [r] = await sql<{ status: ItemStatus; statusReason: string }[]>`
    select status, status_reason from items where id = ${itemId} and seller_id = ${sellerId} and purged_at is null`;
  if (!r) throw notFound('item_not_found', 'No item with this id belongs to the caller.');
  if (r.status !== 'rejected') return { status: r.status, reason: r.statusReason };
  // The owner learns what to fix: the findings of the attempt that rejected the listing.
  const [scan] = await sql<{ findings: Finding[] }[]>`
    select findings from scan_results where item_id = ${itemId} and verdict <> 'active'
    order by id desc limit 1`;
  return {
    status: r.status,
    reason: r.statusReason,
    findings: ownerFindings(scan?.findings ?? []),
  };
}

/**
 * Owner-only delete (spec 3.1, 4.3): a listed item becomes `deleted`/`removed` at once and leaves
 * search, detail and public status; a queued scan is cancelled. Idempotent; a rejected item stays
 * rejected (terminal). 404 when the item is absent or not the caller's, indistinguishably. The
 * acquire prompt cache of this process forgets the item at once (other replicas' claims re-check).
 */
export async function deleteListing(
  deps: { sql: Db; saleItems?: { invalidate(itemId: string): void } },
  sellerId: string,
  itemId: string,
): Promise<void> {
  const { sql } = deps;
  const [r] = await sql<{ status: ItemStatus }[]>`
    select status from items where id = ${itemId} and seller_id = ${sellerId} and purged_at is null`;
  if (!r) throw notFound('item_not_found', 'No item with this id belongs to the caller.');
  if (!LISTED.includes(r.status)) return;
  await sql`
    update items set status = 'deleted', status_reason = 'removed', deleted_at = now(), updated_at = now()
    where id = ${itemId} and status in ('pending_scan', 'scanning', 'active')`;
  await sql`update jobs set state = 'done', last_error = 'item deleted', updated_at = now()
            where item_id = ${itemId} and state = 'queued'`;
  deps.saleItems?.invalidate(itemId);
}
