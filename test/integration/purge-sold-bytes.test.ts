import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeleted } from '../../src/domain/listings/purge.js';
import { reconcileNow } from '../../src/runtime.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * Review s27: a deleted listing that buyers hold orders for is "hidden" by the retention purge
 * (purged_at set, row and bytes kept for their downloads). But `referenced()` counts only rows
 * with `purged_at is null`, so the orphan sweep of the same (or any later) pass deletes the bytes
 * once they are an hour old: the buyer's download then answers 404 order_not_found.
 */
let t: TestContext;
const dir = mkdtempSync(path.join(tmpdir(), 'rv-purge-'));
beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: dir, DELETED_RETENTION_DAYS: '0' });
});
afterAll(async () => t?.close());

describe('retention purge of a sold, deleted listing', () => {
  it('keeps the bytes the buyer downloads', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const buyer = newWallet();
    const { order } = await clientFor(t.app, buyer).acquire(item.itemId);
    const { sql } = t.runtime.deps;
    const [row] = await sql<{ archiveKey: string }[]>`
      select archive_key from items where id = ${item.itemId}`;
    // the seller deleted it (long ago); the archive was stored two hours ago
    await sql`update items set status = 'deleted', status_reason = 'removed',
                deleted_at = now() - interval '1 day' where id = ${item.itemId}`;
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(path.resolve(dir, ...row!.archiveKey.split('/')), old, old);

    const report = await purgeDeleted(t.runtime.deps);
    expect(report.hidden).toBe(1);
    expect(await t.runtime.deps.storage.stat(row!.archiveKey)).toBeDefined();
    const links = await clientFor(t.app, buyer).getOrder(order.order_id);
    const res = await t.app.inject({
      method: 'GET',
      url: new URL(links.download_url).pathname + new URL(links.download_url).search,
    });
    expect(res.statusCode).toBe(200);
  });

  /**
   * A payment settled whose order is not written yet (the process died between the two; the
   * reconciler completes it) holds its listing: before, the purge hard-deleted a deleted listing
   * with no order, and the completion then failed on the order's key for good: the buyer paid and
   * could not download (found by the s47 pay review).
   */
  it('keeps a deleted listing whose payment is settled but not yet completed', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const buyer = newWallet();
    const { order } = await clientFor(t.app, buyer).acquire(item.itemId);
    const { sql } = t.runtime.deps;
    // the state a crash after settlement leaves: the payment settled, no order
    const [pay] = await sql<{ id: string }[]>`
      delete from orders where id = ${order.order_id} returning payment_id as id`;
    await sql`delete from legal_acceptances where order_id = ${order.order_id}`;
    await sql`update x402_payments set status = 'settled', updated_at = now() - interval '1 hour'
              where id = ${pay!.id}`;
    await sql`update items set status = 'deleted', status_reason = 'removed',
                deleted_at = now() - interval '1 day' where id = ${item.itemId}`;

    const report = await purgeDeleted(t.runtime.deps);
    expect(report.deleted).toBe(0);
    await reconcileNow(t.runtime.deps, 1);
    const [done] = await sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item.itemId}`;
    expect(done!.n).toBe(1);
    // completed, the listing is a sold deleted one: hidden, and the buyer downloads it
    expect((await purgeDeleted(t.runtime.deps)).hidden).toBe(1);
    const links = await clientFor(t.app, buyer).getOrder(order.order_id);
    const res = await t.app.inject({
      method: 'GET',
      url: new URL(links.download_url).pathname + new URL(links.download_url).search,
    });
    expect(res.statusCode).toBe(200);
  });

  it('keeps them when a rejected listing with the same bytes is purged', async () => {
    const sold = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
    const buyer = newWallet();
    const { order } = await clientFor(t.app, buyer).acquire(sold.itemId);
    const { sql } = t.runtime.deps;
    await sql`update items set status = 'deleted', status_reason = 'removed',
                deleted_at = now() - interval '1 day' where id = ${sold.itemId}`;
    expect((await purgeDeleted(t.runtime.deps)).hidden).toBe(1);
    // the same archive uploaded again by another seller and rejected long ago
    const copy = await createSaleItem(t.runtime.deps, { bytes: sold.bytes });
    await sql`update items set status = 'rejected', status_reason = 'safety_checks_failed',
                updated_at = now() - interval '1 day' where id = ${copy.itemId}`;
    expect((await purgeDeleted(t.runtime.deps)).rejected).toBe(1);

    const [row] = await sql<{ archiveKey: string }[]>`
      select archive_key from items where id = ${sold.itemId}`;
    expect(await t.runtime.deps.storage.stat(row!.archiveKey)).toBeDefined();
    const links = await clientFor(t.app, buyer).getOrder(order.order_id);
    const res = await t.app.inject({
      method: 'GET',
      url: new URL(links.download_url).pathname + new URL(links.download_url).search,
    });
    expect(res.statusCode).toBe(200);
  });
});
