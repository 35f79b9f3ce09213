import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { piece, Pieces } from '../../db/pieces.js';
import type { SqlFragment } from '../payments/fulfilment.js';
import type { ItemStatus } from '../../wire/listings.js';
import type { ValidUpload } from './upload.js';
import type { Micro } from '../../wire/money.js';
import { enqueueJob } from '../../jobs/queue.js';
import { scanJob } from '../scan/scan-job.js';

export const LISTING_FEE_OPERATION = 'listing_fee';
/** States in which an archive counts as "currently listed" (duplicates, the listing cap). */
export const LISTED: ItemStatus[] = ['pending_scan', 'scanning', 'active'];

/**
 * Duplicate rules by SHA-256 across all sellers, before any fee (spec 4.3 rule 3):
 * ever refused by the scan → 403 `code_previously_rejected`; listed by anyone → 409
 * `duplicate_code`; deleted by the same seller → allowed. A still-kept deleted listing of another
 * seller also answers 409 `duplicate_code` (the bytes are that seller's listing until purged).
 */
export async function checkDuplicates(
  sql: Db,
  sha256: string,
  sellerAddress?: string,
): Promise<void> {
  const [rejected] = await sql`select 1 from rejected_archives where archive_sha256 = ${sha256}`;
  if (rejected) {
    throw new AppError('code_previously_rejected', {
      message: 'this archive was refused by the safety scan and can never be listed',
    });
  }
  const rows = await sql<{ status: ItemStatus; address: string }[]>`
    select i.status, a.address from items i join agents a on a.id = i.seller_id
    where i.archive_sha256 = ${sha256} and i.status in ('pending_scan', 'scanning', 'active', 'deleted')
      and i.purged_at is null`;
  const other = sellerAddress?.toLowerCase();
  for (const r of rows) {
    if (
      LISTED.includes(r.status) ||
      (r.status === 'deleted' && other !== undefined && r.address !== other)
    ) {
      throw new AppError('duplicate_code', { message: 'this archive is already listed' });
    }
  }
}

/** The seller's listed (pending, scanning, active) items against the cap (spec 8). */
export async function checkListingCap(sql: Db, sellerAddress: string, cap: number): Promise<void> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from items i join agents a on a.id = i.seller_id
    where a.address = ${sellerAddress.toLowerCase()} and i.status in ('pending_scan', 'scanning', 'active')`;
  if ((row?.n ?? 0) >= cap) {
    throw new AppError('listing_limit_reached', {
      message: `a seller can have at most ${cap} listings at once; delete one first`,
    });
  }
}

/** A listing row as every writer of one gives it (the fee's fulfilment, the demo, tests). */
export interface NewItem {
  id?: string;
  status: ItemStatus;
  statusReason: string;
  title: string;
  description: string;
  promptSummary: string | null;
  techStack: string;
  price: Micro;
  archiveSha256: string;
  archiveKey: string;
  archiveSize: number;
  compression: 'zip' | 'tar.gz';
  fileName: string;
}

/**
 * The one insert of a listing row, as a statement or a CTE: `seller` is the seller's id or a SQL
 * expression over `from` (e.g. `agent.id` with `from paid cross join agent`). An active row is
 * activated now, a deleted one deleted now. Callers add `on conflict` and `returning` as needed.
 */
export function insertItem(
  sql: Db,
  seller: string | SqlFragment,
  item: NewItem,
  from: SqlFragment = sql``,
): SqlFragment {
  const sellerId = typeof seller === 'string' ? sql`${seller}::uuid` : seller;
  return sql`
    insert into items (id, seller_id, status, status_reason, title, description, prompt_summary,
                       tech_stack, price_micro, archive_sha256, archive_key, archive_size, compression,
                       file_name, activated_at, deleted_at)
    select coalesce(${item.id ?? null}::uuid, gen_random_uuid()), ${sellerId}, ${item.status},
           ${item.statusReason}, ${item.title}, ${item.description}, ${item.promptSummary},
           ${item.techStack}, ${item.price}::bigint, ${item.archiveSha256}, ${item.archiveKey},
           ${item.archiveSize}::bigint, ${item.compression}, ${item.fileName},
           case when ${item.status} = 'active' then now() end,
           case when ${item.status} = 'deleted' then now() end
    ${from}`;
}

/**
 * Where an archive's bytes live: addressed by content, so a retried upload (the fee pending or
 * refused) stores nothing new and one copy serves every row with these bytes.
 */
export function archiveKeyOf(sha256: string, compression: 'zip' | 'tar.gz'): string {
  return `archives/${sha256}.${compression === 'zip' ? 'zip' : 'tar.gz'}`;
}

/** What the route stores with the payment claim; the fulfilment creates the listing from it. */
export type ListingContext = {
  item_id: string;
  archive_key: string;
  archive_sha256: string;
  archive_size: number;
  compression: 'zip' | 'tar.gz';
  file_name: string;
  title: string;
  description: string;
  prompt_summary: string | null;
  tech_stack: string;
  /** Kept as stored in payment contexts and bound into the fee's request digest. */
  price_micro: Micro;
} & Record<string, unknown>;

export type ListingResult = { item_id: string; status: ItemStatus } & Record<string, unknown>;

export function listingContext(itemId: string, archiveKey: string, u: ValidUpload): ListingContext {
  return {
    item_id: itemId,
    archive_key: archiveKey,
    archive_sha256: u.sha256,
    archive_size: u.bytes.length,
    compression: u.compression,
    file_name: u.fileName,
    title: u.metadata.title,
    description: u.metadata.description,
    prompt_summary: u.metadata.promptSummary,
    tech_stack: u.metadata.techStack,
    price_micro: u.metadata.price,
  };
}

/**
 * The writes that create a listing, as pieces over the relations `paid` (one row: act) and `agent`
 * (the seller): `listed`, the item in `pending_scan`, with its scan job (`queued`), or `refused`,
 * the item `rejected`/`duplicate_content` when identical bytes were listed concurrently. Shared
 * by the paid listing (Revision B) and the keyed one (Revision A, no fee): listing-statement.ts.
 */
export function listingWrites(sql: Db, config: Config, c: ListingContext) {
  const row = (status: ItemStatus, statusReason: string): NewItem => ({
    id: c.item_id,
    status,
    statusReason,
    title: c.title,
    description: c.description,
    promptSummary: c.prompt_summary,
    techStack: c.tech_stack,
    price: c.price_micro,
    archiveSha256: c.archive_sha256,
    archiveKey: c.archive_key,
    archiveSize: c.archive_size,
    compression: c.compression,
    fileName: c.file_name,
  });
  const fromPaid = sql`from paid cross join agent where true`;
  const listed = sql`listed as (
        ${insertItem(sql, sql`agent.id`, row('pending_scan', 'pending_review'), fromPaid)}
        on conflict (archive_sha256) where status in ('pending_scan', 'scanning', 'active') do nothing
        returning id
      )`;
  const refused = sql`refused as (
        ${insertItem(sql, sql`agent.id`, row('rejected', 'duplicate_content'), fromPaid)}
        and not exists (select 1 from listed)
        returning id
      )`;
  const queued = sql`queued as (
        ${enqueueJob(sql, scanJob(c.item_id, config.SCAN_MAX_ATTEMPTS), sql`exists (select 1 from listed)`)}
      )`;
  return Pieces.given('paid', 'agent')
    .then(piece('listed', ['paid', 'agent'], listed))
    .then(piece('refused', ['paid', 'agent', 'listed'], refused))
    .then(piece('queued', ['listed'], queued));
}
