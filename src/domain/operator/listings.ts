import type { Sql, SqlFragment as Fragment } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { ownerFindings, type OwnerFinding } from '../../scan/findings.js';
import type { Finding } from '../../scan/types.js';
import { toUsdc, type Micro } from '../../wire/money.js';
import { ITEM_STATUSES, type ItemStatus } from '../../wire/listings.js';
import { deleteListing } from '../listings/inventory.js';
import { LISTED } from '../listings/listings.js';
import { recordAudit } from './audit.js';

/** The listings page: every non-purged listing, filtered by status, seller and title. */
export interface ListingFilter {
  status?: ItemStatus;
  /** A seller's username or wallet address (exact, case-insensitive). */
  seller?: string;
  /** Part of the title (case-insensitive). */
  q?: string;
  limit?: number;
}

export interface ListingRow {
  item_id: string;
  title: string;
  status: ItemStatus;
  status_reason: string;
  seller_username: string;
  seller_address: string;
  price_usdc: number;
  sales: number;
  created_at: string;
}

export const LISTING_STATUSES = ITEM_STATUSES;

export async function findListings(sql: Sql, f: ListingFilter): Promise<ListingRow[]> {
  const status = f.status ? sql`and i.status = ${f.status}` : sql``;
  const seller = f.seller
    ? sql`and (lower(a.username) = lower(${f.seller}) or a.address = lower(${f.seller}))`
    : sql``;
  // the title filter is a plain substring: the operator's LIKE metacharacters are escaped
  const q = f.q ? sql`and i.title ilike ${`%${f.q.replace(/[\\%_]/g, '\\$&')}%`}` : sql``;
  return listingRows(
    sql,
    sql`i.purged_at is null ${status} ${seller} ${q}`,
    sql`order by i.created_at desc, i.id limit ${f.limit ?? 100}`,
  );
}

export interface ListingDetail extends ListingRow {
  description: string;
  tech_stack: string;
  file_name: string;
  archive_size: number;
  scans: {
    attempt: number;
    verdict: string;
    reason: string;
    duration_ms: number;
    at: string;
    findings: OwnerFinding[];
  }[];
  orders: {
    order_id: string;
    buyer_username: string;
    chain: string;
    amount_usdc: number;
    at: string;
  }[];
  revenue_usdc: number;
  ratings: { approved: number; pending: number; rejected: number; average: number | null };
}

/** One listing with its scan report, sales and ratings (any state, the operator's view). */
export async function listingDetail(sql: Sql, itemId: string): Promise<ListingDetail> {
  const [row] = await findListingById(sql, itemId);
  if (!row) throw notFound('item_not_found', 'No listing with this id.');
  const [more] = await sql<
    { description: string; techStack: string; fileName: string; archiveSize: number }[]
  >`select description, tech_stack, file_name, archive_size from items where id = ${itemId}`;
  const scans = await sql<
    {
      attempt: number;
      verdict: string;
      reason: string;
      durationMs: number;
      createdAt: Date;
      findings: Finding[];
    }[]
  >`
    select attempt, verdict, reason, duration_ms, created_at, findings from scan_results
    where item_id = ${itemId} order by id desc limit 20`;
  const orders = await sql<
    { id: string; username: string; chain: string; amountMicro: number; completedAt: Date }[]
  >`
    select o.id, b.username, o.chain, o.amount_micro, o.completed_at
    from orders o join agents b on b.id = o.buyer_id
    where o.item_id = ${itemId} order by o.completed_at desc limit 100`;
  const [totals] = await sql<{ revenue: string }[]>`
    select coalesce(sum(amount_micro), 0)::text as revenue from orders where item_id = ${itemId}`;
  const [ratings] = await sql<
    { approved: number; pending: number; rejected: number; average: number | null }[]
  >`
    select count(*) filter (where moderation_status = 'approved')::int as approved,
           count(*) filter (where moderation_status = 'pending')::int as pending,
           count(*) filter (where moderation_status = 'rejected')::int as rejected,
           (avg(rating) filter (where moderation_status = 'approved'))::float8 as average
    from item_feedback where item_id = ${itemId}`;
  return {
    ...row,
    description: more!.description,
    tech_stack: more!.techStack,
    file_name: more!.fileName,
    archive_size: Number(more!.archiveSize),
    scans: scans.map((s) => ({
      attempt: s.attempt,
      verdict: s.verdict,
      reason: s.reason,
      duration_ms: s.durationMs,
      at: s.createdAt.toISOString(),
      findings: ownerFindings(s.findings),
    })),
    orders: orders.map((o) => ({
      order_id: o.id,
      buyer_username: o.username,
      chain: o.chain,
      amount_usdc: toUsdc(o.amountMicro),
      at: o.completedAt.toISOString(),
    })),
    revenue_usdc: toUsdc(Number(totals!.revenue)),
    ratings: ratings!,
  };
}

function findListingById(sql: Sql, itemId: string): Promise<ListingRow[]> {
  return listingRows(sql, sql`i.id = ${itemId} and i.purged_at is null`, sql``);
}

/** The console's listing rows: one select for the list and for a listing's page. */
async function listingRows(sql: Sql, where: Fragment, tail: Fragment): Promise<ListingRow[]> {
  const rows = await sql<
    {
      id: string;
      title: string;
      status: ItemStatus;
      statusReason: string;
      username: string;
      address: string;
      price: Micro;
      sales: number;
      createdAt: Date;
    }[]
  >`
    select i.id, i.title, i.status, i.status_reason, a.username, a.address, i.price_micro as price,
           (select count(*)::int from orders o where o.item_id = i.id) as sales, i.created_at
    from items i join agents a on a.id = i.seller_id
    where ${where} ${tail}`;
  return rows.map((r) => ({
    item_id: r.id,
    title: r.title,
    status: r.status,
    status_reason: r.statusReason,
    seller_username: r.username,
    seller_address: r.address,
    price_usdc: toUsdc(r.price),
    sales: r.sales,
    created_at: r.createdAt.toISOString(),
  }));
}

/**
 * The operator takes a listing down: exactly the owner's delete (state `deleted`, reason
 * `removed`, out of search and detail at once, a queued scan cancelled, the acquire cache told),
 * with the operator's reason in the audit trail. Idempotent like the owner's delete; a listing
 * that is not listed (rejected, already deleted) is left as it is and the attempt is still audited.
 */
export async function takeDownListing(
  deps: { sql: Sql; saleItems?: { invalidate(itemId: string): void } },
  actor: string,
  itemId: string,
  reason: string,
): Promise<{ item_id: string; status: ItemStatus; taken_down: boolean }> {
  const { sql } = deps;
  const outcome = await sql.begin(async (tx) => {
    const [row] = await tx<{ sellerId: string; status: ItemStatus }[]>`
      select seller_id, status from items where id = ${itemId} and purged_at is null for update`;
    if (!row) throw notFound('item_not_found', 'No listing with this id.');
    // Only a listed item can be taken down: a second take-down (two operators, a form sent
    // twice) or one of a listing already deleted or rejected changes nothing, so it writes no
    // audit row claiming it did; the row lock makes the first of two racing ones the only one.
    if (!LISTED.includes(row.status)) return { status: row.status, taken_down: false };
    await deleteListing({ sql: tx }, row.sellerId, itemId);
    await recordAudit(tx, {
      actor,
      action: 'listing.take_down',
      target: itemId,
      reason,
      detail: { previous_status: row.status },
    });
    const [after] = await tx<
      { status: ItemStatus }[]
    >`select status from items where id = ${itemId}`;
    return { status: after!.status, taken_down: true };
  });
  // after the commit, like the owner's delete: this process's acquire prompts forget it at once
  deps.saleItems?.invalidate(itemId);
  return { item_id: itemId, ...outcome };
}
