import type { ScanDeps } from '../scan/scan-job.js';
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
    select i.id, i.archive_key, i.status, exists (select 1 from orders o where o.item_id = i.id) as has_orders
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
    // a payment that may still write an order for it (settled before a crash, the reconciler to
    // complete it; a failure whose transfer may yet be mined) holds the row: deleted, the
    // completion would fail on the order's key for good and the buyer could not download
    const gone = await sql`delete from items i where i.id = ${r.id} and i.status = 'deleted'
                             and not exists (select 1 from orders o where o.item_id = i.id)
                             and not exists (select 1 from x402_payments p
                                             where ${unresolvedPayment(sql)}
                                               and p.context ->> 'itemId' = i.id::text)
                           returning 1 as ok`;
    if (!gone.length) continue;
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
 * Keys still needed: any listing not purged, any listing buyers hold orders for (purged or not:
 * a deleted listing that sold is hidden, and its buyers still download it), and any payment that
 * may still create one (open, or failed at settlement while its transfer may yet be mined:
 * migration 370).
 */
export async function referenced(deps: Pick<ScanDeps, 'sql'>, key: string): Promise<boolean> {
  const [row] = await deps.sql`
    select 1 where exists (select 1 from items i where i.archive_key = ${key}
                             and (i.purged_at is null
                                  or exists (select 1 from orders o where o.item_id = i.id)))
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
