import { neutraliseUnsafeLinks } from './markdown.js';
import type { Db } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { type Chain } from '../../wire/chains.js';
import { toUsdc, type Micro } from '../../wire/money.js';
import type { PublicItem, PublicStatus } from '../../wire/items.js';
import type { ItemStatus } from '../../wire/listings.js';
import { previewSummaryColumns, toPreviewSummary } from './preview.js';

/** Columns every public projection selects (alias `i` = items, `a` = seller agent). */
export interface PublicItemRow {
  id: string;
  status: string;
  title: string;
  description: string;
  promptSummary: string | null;
  techStack: string;
  price: Micro;
  sellerUsername: string;
  availableChains: Chain[];
  ratingCount: number;
  ratingAvg: number | null;
  /** The compact preview (issue 29), null when the listing has none. */
  previewSummary: unknown;
}

/**
 * Whether the listing `i`'s seller can be paid on at least one chain (the `payable_chains` view,
 * migration 045): the condition of listings offered where a purchase needs a payout address
 * (Revision A's search and discovery).
 */
export function sellerPayable(sql: Db) {
  return sql`exists (select 1 from payable_chains pc where pc.agent_id = i.seller_id)`;
}

/**
 * SQL fragment of the public projection. `available_chains` = the seller's rows of the
 * `payable_chains` view (migration 045); ratings count approved feedback with a rating only.
 */
export function publicColumns(sql: Db) {
  return sql`
    i.id, i.status, i.title, i.description, i.prompt_summary, i.tech_stack, i.price_micro as price,
    a.username as seller_username,
    array(select pc.chain from payable_chains pc where pc.agent_id = i.seller_id order by pc.chain
    ) as available_chains,
    (select count(*) from item_feedback f
      where f.item_id = i.id and f.moderation_status = 'approved' and f.rating is not null) as rating_count,
    (select avg(f.rating)::float8 from item_feedback f
      where f.item_id = i.id and f.moderation_status = 'approved' and f.rating is not null) as rating_avg,
    ${previewSummaryColumns(sql)}`;
}

export function toPublicItem(row: PublicItemRow, ratingThreshold: number): PublicItem {
  const item: PublicItem = {
    id: row.id,
    status: row.status,
    metadata: {
      title: row.title,
      // clients may render these as Markdown: no javascript:/data:/vbscript: links
      description: neutraliseUnsafeLinks(row.description),
      ...(row.promptSummary ? { prompt_summary: neutraliseUnsafeLinks(row.promptSummary) } : {}),
      tech_stack: row.techStack,
      prices: { USDC: toUsdc(row.price) },
      seller_username: row.sellerUsername,
    },
    available_chains: row.availableChains,
  };
  const preview = toPreviewSummary(row.previewSummary);
  if (preview) item.preview = preview;
  // Spec 2.1: present only at the threshold or above; otherwise omitted entirely (never zero).
  if (row.ratingCount >= ratingThreshold && row.ratingAvg !== null) {
    item.rating_avg = Math.round(row.ratingAvg * 10) / 10;
    item.rating_count = row.ratingCount;
  }
  return item;
}

/** `GET /api/v1/items/{uuid}`: only active items exist publicly. */
export async function getPublicItem(
  sql: Db,
  id: string,
  ratingThreshold: number,
): Promise<PublicItem> {
  const [row] = await sql<PublicItemRow[]>`
    select ${publicColumns(sql)}
    from items i join agents a on a.id = i.seller_id
    where i.id = ${id} and i.status = 'active'`;
  if (!row) throw notFound('item_not_found', 'No active item with this id.');
  return toPublicItem(row, ratingThreshold);
}

/**
 * `GET /api/v1/items/{uuid}/status`: 404 unless the item's status is one of `visible` (the HTTP
 * face's `publicStatuses`: Revision B rule 3.1.3 shows only active items; Revision A, the API-key
 * mode, also shows the scan states). Deleted is always 404 publicly.
 */
export async function getPublicStatus(
  sql: Db,
  id: string,
  visible: readonly ItemStatus[],
): Promise<PublicStatus> {
  const [row] = await sql<{ id: string; status: string; statusReason: string; createdAt: Date }[]>`
    select id, status, status_reason, created_at from items
    where id = ${id} and status = any(${visible})`;
  if (!row) throw notFound('item_not_found', 'No item with this id is publicly visible.');
  return {
    id: row.id,
    status: row.status,
    reason: row.statusReason,
    created_at: row.createdAt.toISOString(),
  };
}
