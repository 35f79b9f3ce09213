import type { ScanDeps } from '../scan/scan-job.js';
import type { Sql } from '../../db/index.js';
import { unresolvedPayment } from '../payments/store.js';

/** Bytes younger than this are never swept: an upload may be between its put and its claim. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export interface PurgeReport {
  /** Deleted listings removed with their bytes. */
  deleted: number;
  /** Deleted listings kept for buyers' downloads but hidden from the seller's inventory. */
  hidden: number;
  /** Rejected listings whose bytes went after the retention (the ban by SHA-256 stays). */
  rejected: number;
  /** Archive bytes no listing and no open payment refers to. */
  orphans: number;
  /** Temporary files of uploads whose process died while storing them. */
  abandonedPuts: number;
}

/**
 * Retention cleanup (spec 3.1 rule 1), a periodic task. After DELETED_RETENTION_DAYS:
 * - a deleted row is hard-deleted when no order refers to it and no unresolved payment may still
 *   write one; when buyers hold orders, row and bytes stay for their downloads and the row only
 *   leaves the seller's inventory (an unresolved payment's row waits for a later pass);
 * - a rejected row leaves the inventory and its bytes go (`rejected_archives` keeps the ban);
 * - archive bytes that no row and no unfinished payment refers to (a fee that never settled, a
 *   refused retry), and what a put cut off by a crash left, are swept once they are an hour old.
 * Bytes are shared by content address, so they go only when nothing refers to them any more;
 * the row goes first, then the bytes, so no visible row ever points at missing bytes.
 */
export async function purgeDeleted(
  deps: Pick<ScanDeps, 'sql' | 'storage' | 'config' | 'logger'>,
  batch = 100,
): Promise<PurgeReport> {
  const { sql, config } = deps;
  const retention = config.DELETED_RETENTION_DAYS * 86_400;
  const report: PurgeReport = { deleted: 0, hidden: 0, rejected: 0, orphans: 0, abandonedPuts: 0 };
  const rows = await sql<{ id: string; archiveKey: string; status: string; hasOrders: boolean }[]>`
    select i.id, i.archive_key, i.status, exists (select 1 from orders o where o.seller_id = i.seller_id and o.item_id = i.id) as has_orders
    from items i
    where i.purged_at is null
      and ((i.status = 'deleted' and i.deleted_at < now() - make_interval(secs => ${retention}))
        or (i.status = 'rejected' and i.updated_at < now() - make_interval(secs => ${retention})))
    order by i.updated_at limit ${batch}`;
  const released = new Set<string>();
  for (const r of rows) {
    if (r.status === 'rejected' || r.hasOrders) {
      await sql`update items set purged_at = now() where id = ${r.id}`;
      if (r.status === 'rejected') {
        report.rejected++;
        released.add(r.archiveKey);
      } else report.hidden++;
      continue;
    }
    if (!(await deleteUnsold(sql, r.id))) continue;
    report.deleted++;
    released.add(r.archiveKey);
  }
  for (const key of released) await deleteUnreferenced(deps, key);
  report.orphans = await sweepOrphans(deps);
  report.abandonedPuts =
    (await deps.storage.removeAbandonedPuts?.(new Date(Date.now() - ORPHAN_GRACE_MS))) ?? 0;
  return report;
}

/**
 * Hard-deletes a deleted listing that no order names and no unresolved payment may still write one
 * for. An order names its item without a foreign key (migration 478), so the delete is serialised
 * against purchases here: SHARE locks on `x402_payments` (every claim and completion writes it) and
 * `orders` wait for the purchases in flight and hold new ones back until this commits; the checks then read with a snapshot taken after the lock, so they see an order or claim
 * that committed first, and a purchase that waited finds the item gone (its sale check refuses it,
 * nothing written). A payment that may still write an order (settled before a crash, the
 * reconciler to complete it; a failure whose transfer may yet be mined) holds the row: deleted, the
 * buyer could not download. The lock is given up after `lock_timeout` rather than stall purchases
 * behind a long transaction (or a purchase whose statement holds `orders` and waits for
 * `x402_payments`: the purge, waiting first and for less than `deadlock_timeout`, is the side that
 * gives up): the row waits for a later pass. While the locks are held, purchases wait: the checks
 * read an item's orders through the seller's index (`orders_seller`; an order's seller is its
 * item's, written by the statement that reads the item), the seller's orders, not every order.
 */
async function deleteUnsold(sql: Sql, id: string): Promise<boolean> {
  try {
    return await sql.begin(async (tx) => {
      await tx`set local lock_timeout = '500ms'`;
      await tx`lock table x402_payments, orders in share mode`;
      const gone = await tx`delete from items i where i.id = ${id} and i.status = 'deleted'
                              and not exists (select 1 from orders o where o.seller_id = i.seller_id and o.item_id = i.id)
                              and not exists (select 1 from x402_payments p
                                              where ${unresolvedPayment(tx)}
                                                and p.context ->> 'itemId' = i.id::text)
                            returning 1 as ok`;
      return gone.length > 0;
    });
  } catch (e) {
    if ((e as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
    throw e;
  }
}
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Keys still needed: any listing not purged, any listing buyers hold orders for (purged or not:
 * a deleted listing that sold is hidden, and its buyers still download it), and any payment that
 * may still create one (open, or failed at settlement while its transfer may yet be mined:
 * migration 370).
 */
export async function referenced(deps: Pick<ScanDeps, 'sql'>, key: string): Promise<boolean> {
  const [row] = await deps.sql`
    select 1 where exists (select 1 from items i where i.archive_key = ${key}
                             and (i.purged_at is null
                                  or exists (select 1 from orders o where o.seller_id = i.seller_id and o.item_id = i.id)))
       or exists (select 1 from x402_payments
                  where ${unresolvedPayment(deps.sql)}
                    and context ->> 'archive_key' = ${key})`;
  return Boolean(row);
}

async function deleteUnreferenced(
  deps: Pick<ScanDeps, 'sql' | 'storage' | 'logger'>,
  key: string,
): Promise<boolean> {
  if (await referenced(deps, key)) return false;
  try {
    await deps.storage.delete(key);
    return true;
  } catch (err) {
    deps.logger.warn({ err, key }, 'could not delete unreferenced archive bytes');
    return false;
  }
}

async function sweepOrphans(deps: Pick<ScanDeps, 'sql' | 'storage' | 'logger'>): Promise<number> {
  let swept = 0;
  const cutoff = Date.now() - ORPHAN_GRACE_MS;
  for await (const o of deps.storage.list('archives/')) {
    if (o.modifiedAt.getTime() > cutoff) continue;
    if (await deleteUnreferenced(deps, o.key)) swept++;
  }
  return swept;
}
