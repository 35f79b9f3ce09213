import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * A buyer who paid can download (issue s29): what the download route answers when the archive
 * store fails or lost the bytes after settlement, and byte ranges for a resumed download.
 */
let t: TestContext;
const archives = mkdtempSync(path.join(tmpdir(), 'dl-edges-'));
beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: archives });
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;
const rel = (url: string) => url.replace('http://marketplace.test', '');

async function bought() {
  const item = await createSaleItem(deps(), { priceUsdc: 1.25 });
  const buyer = newWallet();
  const client = clientFor(t.app, buyer);
  const { order } = await client.acquire(item.itemId);
  return { item, buyer, client, order };
}

describe('the store fails after the buyer paid', () => {
  it('an unreadable store is 503 storage_unavailable with Retry-After, never a 500; the order stands', async () => {
    const { order, item } = await bought();
    // the store's directory replaced by a file: every read fails with ENOTDIR (a real fs error)
    const dir = path.join(archives, 'archives');
    renameSync(dir, `${dir}.away`);
    writeFileSync(dir, 'not a directory');
    try {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await t.app.inject({ method, url: rel(order.download_url) });
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBeDefined();
        if (method === 'GET') expect(res.json()).toMatchObject({ error: 'storage_unavailable' });
      }
    } finally {
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
    }
    // back: the same link serves the bytes
    const res = await t.app.inject(rel(order.download_url));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(item.bytes)).toBe(true);
  });

  it('bytes missing from the store: 404 that says the order stands and names the order', async () => {
    const { order, item } = await bought();
    const file = path.join(archives, 'archives', `${item.sha256}.zip`);
    renameSync(file, `${file}.away`);
    try {
      const res = await t.app.inject(rel(order.download_url));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'archive_unavailable', order_id: order.order_id });
      // the order itself is not lost: it is still the buyer's, with fresh links
      const [row] = await deps().sql`select status from orders where id = ${order.order_id}`;
      expect(row).toMatchObject({ status: 'completed' });
    } finally {
      mkdirSync(path.dirname(file), { recursive: true });
      renameSync(`${file}.away`, file);
    }
  });
});
