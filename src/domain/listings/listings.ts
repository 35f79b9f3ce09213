import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError, notFound } from '../../errors.js';
import { agentProvisioning } from '../accounts/accounts.js';
import { microToUsdc } from '../chains.js';
import type { Fulfilment } from '../payments/fulfilment.js';
import type { ValidUpload } from './upload.js';
import { enqueueJob } from '../../jobs/queue.js';
import { scanJob } from '../scan/scan-job.js';

export const LISTING_FEE_OPERATION = 'listing_fee';
export const ITEM_STATUSES = ['pending_scan', 'scanning', 'active', 'rejected', 'deleted'] as const;
export const ItemStatusSchema = z.enum(ITEM_STATUSES);
export type ItemStatus = z.infer<typeof ItemStatusSchema>;
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
  price_micro: number;
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
    price_micro: u.metadata.priceMicro,
  };
}

/**
 * The fulfilment of the listing fee, in the statement that completes the payment
 * (src/domain/payments/fulfilment.ts): provisions the seller (payout address on every chain, all
 * chains accepted), creates the item in `pending_scan`, queues its scan and records the fee. The
 * archive bytes are already in the blob store. If identical bytes were listed concurrently by
 * someone else, the listing is created `rejected` with `duplicate_content` (the fee is kept, as
 * for any refused listing).
 */
export function listingFulfilment(config: Config): Fulfilment<ListingContext> {
  return (sql, ctx) => {
    const c = ctx.context;
    const columns = sql`(id, seller_id, status, status_reason, title, description, prompt_summary, tech_stack,
                         price_micro, archive_sha256, archive_key, archive_size, compression, file_name)`;
    const values = (status: ItemStatus, reason: string) => sql`
      select ${c.item_id}::uuid, agent.id, ${status}, ${reason}, ${c.title}, ${c.description},
             ${c.prompt_summary}, ${c.tech_stack}, ${c.price_micro}::bigint, ${c.archive_sha256},
             ${c.archive_key}, ${c.archive_size}::bigint, ${c.compression}, ${c.file_name}
      from paid cross join agent where true`;
    const writes = sql`
      ${agentProvisioning(sql, ctx.payer, config.PAYOUT_FACTORY_SALT)},
      listed as (
        insert into items ${columns} ${values('pending_scan', 'pending_review')}
        on conflict (archive_sha256) where status in ('pending_scan', 'scanning', 'active') do nothing
        returning id
      ), refused as (
        insert into items ${columns} ${values('rejected', 'duplicate_content')}
        and not exists (select 1 from listed)
        returning id
      ), queued as (
        ${enqueueJob(sql, scanJob(c.item_id, config.SCAN_MAX_ATTEMPTS), sql`exists (select 1 from listed)`)}
      ), fee as (
        insert into listing_fees (item_id, payment_id, payer, chain, network, asset, pay_to, amount_micro, transaction)
        select id, ${ctx.paymentId}::uuid, ${ctx.payer}, ${ctx.chain}, ${ctx.network}, ${ctx.asset}, ${ctx.payTo},
               ${ctx.amountMicro}::bigint, ${ctx.transaction}
        from (select id from listed union all select id from refused) as created
      )`;
    const result = sql`jsonb_build_object(
      'item_id', ${c.item_id}::text,
      'status', case when exists (select 1 from listed) then 'pending_scan' else 'rejected' end)`;
    return { writes, result };
  };
}

// --- listing invoice links ------------------------------------------------------------------

function invoiceMac(key: Buffer, itemId: string, exp: number): string {
  return createHmac('sha256', key)
    .update(`link:v1:listing-invoice:${itemId}:${exp}`)
    .digest('base64url');
}

export function signListingInvoice(
  key: Buffer,
  baseUrl: string,
  itemId: string,
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  const exp = Math.floor(nowMs / 1000) + ttlSeconds;
  return `${baseUrl}/api/v1/listing-invoices/${itemId}?exp=${exp}&sig=${invoiceMac(key, itemId, exp)}`;
}

export function verifyListingInvoice(
  key: Buffer,
  itemId: string,
  exp: string | undefined,
  sig: string | undefined,
  nowMs = Date.now(),
): void {
  const invalid = () =>
    new AppError('invalid_link', { message: 'the link signature does not match' });
  if (!exp || !sig || !/^\d{1,12}$/.test(exp)) throw invalid();
  const expected = Buffer.from(invoiceMac(key, itemId, Number(exp)));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  if (Number(exp) * 1000 <= nowMs)
    throw new AppError('link_expired', { message: 'this invoice link has expired' });
}

export interface ListingInvoice {
  invoice_number: string;
  kind: 'listing_fee';
  issued_at: string;
  status: 'paid';
  item: { id: string; title: string; file_name: string; sha256: string };
  seller: { address: string; username: string };
  amount: { currency: 'USDC'; total: string; total_raw: string; decimals: 6 };
  payment: {
    chain: string;
    network: string;
    asset: string;
    pay_to: string;
    payer: string;
    transaction: string;
    scheme: 'exact';
  };
}

export async function listingInvoice(sql: Db, itemId: string): Promise<ListingInvoice> {
  const [r] = await sql<
    {
      itemId: string;
      title: string;
      fileName: string;
      archiveSha256: string;
      username: string;
      payer: string;
      chain: string;
      network: string;
      asset: string;
      payTo: string;
      amountMicro: number;
      transaction: string;
      paidAt: Date;
    }[]
  >`
    select f.item_id, i.title, i.file_name, i.archive_sha256, a.username, f.payer, f.chain, f.network, f.asset,
           f.pay_to, f.amount_micro, f.transaction, f.paid_at
    from listing_fees f join items i on i.id = f.item_id join agents a on a.id = i.seller_id
    where f.item_id = ${itemId}`;
  if (!r) throw notFound();
  return {
    invoice_number: `LST-${r.itemId.slice(0, 8).toUpperCase()}`,
    kind: 'listing_fee',
    issued_at: r.paidAt.toISOString(),
    status: 'paid',
    item: { id: r.itemId, title: r.title, file_name: r.fileName, sha256: r.archiveSha256 },
    seller: { address: r.payer, username: r.username },
    amount: {
      currency: 'USDC',
      total: microToUsdc(r.amountMicro).toFixed(6),
      total_raw: String(r.amountMicro),
      decimals: 6,
    },
    payment: {
      chain: r.chain,
      network: r.network,
      asset: r.asset,
      pay_to: r.payTo,
      payer: r.payer,
      transaction: r.transaction,
      scheme: 'exact',
    },
  };
}

export function renderListingInvoiceMarkdown(inv: ListingInvoice): string {
  return [
    `# Invoice ${inv.invoice_number}`,
    '',
    `Listing fee for "${inv.item.title}" (${inv.item.file_name}), item ${inv.item.id}.`,
    '',
    `- Status: ${inv.status}`,
    `- Issued: ${inv.issued_at}`,
    `- Seller: ${inv.seller.username} (${inv.seller.address})`,
    `- Amount: ${inv.amount.total} ${inv.amount.currency}`,
    `- Paid on ${inv.payment.chain} (${inv.payment.network}) to ${inv.payment.pay_to}, transaction ${inv.payment.transaction}`,
    '',
  ].join('\n');
}

export function renderListingInvoiceHtml(inv: ListingInvoice): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const md = renderListingInvoiceMarkdown(inv).split('\n').filter(Boolean);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(md[0]!.slice(2))}</title></head><body><h1>${esc(md[0]!.slice(2))}</h1>${md
    .slice(1)
    .map((l) => `<p>${esc(l.replace(/^- /, ''))}</p>`)
    .join('')}</body></html>`;
}

// --- seller side ------------------------------------------------------------------------------

export interface SellerItemRow {
  item_id: string;
  status: ItemStatus;
  status_reason: string;
  title: string;
  tech_stack: string;
  prices: { USDC: number };
  created_at: string;
  deleted_at: string | null;
}

/** All non-purged rows of one seller, newest first (spec 4.3 `GET /api/v1/seller/items`). */
export async function sellerItems(
  sql: Db,
  sellerId: string,
  q: { status?: ItemStatus; limit: number; offset: number },
): Promise<{
  items: SellerItemRow[];
  pagination: { limit: number; offset: number; total: number };
  allowed_statuses: ItemStatus[];
}> {
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
      priceMicro: number;
      createdAt: Date;
      deletedAt: Date | null;
    }[]
  >`
    select id, status, status_reason, title, tech_stack, price_micro, created_at, deleted_at
    from items where seller_id = ${sellerId} and purged_at is null ${filter}
    order by created_at desc, id limit ${q.limit} offset ${q.offset}`;
  return {
    items: rows.map((r) => ({
      item_id: r.id,
      status: r.status,
      status_reason: r.statusReason,
      title: r.title,
      tech_stack: r.techStack,
      prices: { USDC: microToUsdc(r.priceMicro) },
      created_at: r.createdAt.toISOString(),
      deleted_at: r.deletedAt ? r.deletedAt.toISOString() : null,
    })),
    pagination: { limit: q.limit, offset: q.offset, total },
    allowed_statuses: [...ITEM_STATUSES],
  };
}

/** Owner view of one item, hidden states included; 404 for anyone else. */
export async function sellerItemStatus(
  sql: Db,
  sellerId: string,
  itemId: string,
): Promise<{ status: ItemStatus; reason: string }> {
  const [r] = await sql<{ status: ItemStatus; statusReason: string }[]>`
    select status, status_reason from items where id = ${itemId} and seller_id = ${sellerId} and purged_at is null`;
  if (!r) throw notFound();
  return { status: r.status, reason: r.statusReason };
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
  if (!r) throw notFound();
  if (!LISTED.includes(r.status)) return;
  await sql`
    update items set status = 'deleted', status_reason = 'removed', deleted_at = now(), updated_at = now()
    where id = ${itemId} and status in ('pending_scan', 'scanning', 'active')`;
  await sql`update jobs set state = 'done', last_error = 'item deleted', updated_at = now()
            where item_id = ${itemId} and state = 'queued'`;
  deps.saleItems?.invalidate(itemId);
}
