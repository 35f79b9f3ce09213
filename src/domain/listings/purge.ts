import type { ScanDeps } from '../scan/scan-job.js';

/**
 * Retention cleanup of deleted listings (spec 3.1 rule 1). After DELETED_RETENTION_DAYS a deleted
 * row is hard-deleted with its bytes when no order refers to it; when buyers hold orders, the row
 * and bytes stay for their downloads but the row is marked purged and leaves the seller's
 * inventory. The row goes first, then the bytes, so no row ever points at missing bytes.
 */
export async function purgeDeleted(
  deps: Pick<ScanDeps, 'sql' | 'storage' | 'config' | 'logger'>,
  batch = 100,
): Promise<{ deleted: number; hidden: number }> {
  const { sql, storage, config } = deps;
  const rows = await sql<{ id: string; archiveKey: string; hasOrders: boolean }[]>`
    select i.id, i.archive_key, exists (select 1 from orders o where o.item_id = i.id) as has_orders
    from items i
    where i.status = 'deleted' and i.purged_at is null
      and i.deleted_at < now() - make_interval(secs => ${config.DELETED_RETENTION_DAYS * 86_400})
    order by i.deleted_at limit ${batch}`;
  let deleted = 0;
  let hidden = 0;
  for (const r of rows) {
    if (r.hasOrders) {
      await sql`update items set purged_at = now() where id = ${r.id}`;
      hidden++;
      continue;
    }
    const gone = await sql`delete from items i where i.id = ${r.id} and i.status = 'deleted'
                             and not exists (select 1 from orders o where o.item_id = i.id) returning 1 as ok`;
    if (!gone.length) continue;
    deleted++;
    try {
      await storage.delete(r.archiveKey);
    } catch (err) {
      deps.logger.warn({ err, key: r.archiveKey }, 'could not delete purged archive bytes');
    }
  }
  return { deleted, hidden };
}
