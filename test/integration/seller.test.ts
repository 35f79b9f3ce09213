import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeleted } from '../../src/domain/listings/purge.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import {
  asWallet,
  listItem,
  sellerStatus,
  upload,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { clientFor, newWallet, promptOf } from '../helpers/wallets.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ DELETED_RETENTION_DAYS: '0' });
});
afterAll(() => t?.close());

interface ListBody {
  items: Array<{
    item_id: string;
    status: string;
    status_reason: string;
    title: string;
    tech_stack: string;
    prices: { USDC: number };
    created_at: string;
    deleted_at: string | null;
  }>;
  pagination: { limit: number; offset: number; total: number };
  allowed_statuses: string[];
}

describe('identity', () => {
  it('bodiless probes get a zero-value prompt; a wallet that never paid gets agent_not_found', async () => {
    const stranger = newWallet();
    const probe = await t.app.inject('/api/v1/seller/items');
    expect(probe.statusCode).toBe(402);
    for (const a of promptOf(probe).accepts) expect(a.amount).toBe('0');
    for (const [method, url] of [
      ['GET', '/api/v1/seller/items'],
      ['GET', `/api/v1/seller/items/${crypto.randomUUID()}/status`],
      ['DELETE', `/api/v1/items/${crypto.randomUUID()}`],
    ] as const) {
      const res = await asWallet(t, stranger, method, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ error: 'agent_not_found' });
    }
  });
});

describe('seller inventory and status', () => {
  it('lists every non-purged row with filters and pagination; status shows hidden states', async () => {
    const seller = newWallet();
    const active = await listItem(t, seller, {
      bytes: zipOf(uniqueProject()),
      metadata: { title: 'Active one', description: 'd', tech_stack: 'Go', prices: { USDC: 1.25 } },
    });
    const rejected = await listItem(t, seller, { bytes: zipOf({ 'x.py': 'print(1)\n' }) });
    await t.work();
    const pending = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const deleted = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    expect((await asWallet(t, seller, 'DELETE', `/api/v1/items/${deleted}`)).statusCode).toBe(200);

    const all = await asWallet(t, seller, 'GET', '/api/v1/seller/items');
    expect(all.statusCode).toBe(200);
    const body = all.json() as ListBody;
    expect(body.allowed_statuses).toEqual([
      'pending_scan',
      'scanning',
      'active',
      'rejected',
      'deleted',
    ]);
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 4 });
    expect(body.items.map((i) => i.item_id)).toEqual([deleted, pending, rejected, active]);
    const a = body.items.find((i) => i.item_id === active)!;
    expect(a).toEqual({
      item_id: active,
      status: 'active',
      status_reason: 'approved',
      title: 'Active one',
      tech_stack: 'Go',
      prices: { USDC: 1.25 },
      created_at: expect.any(String),
      deleted_at: null,
    });
    expect(body.items.find((i) => i.item_id === deleted)).toMatchObject({
      status: 'deleted',
      status_reason: 'removed',
      deleted_at: expect.any(String),
    });
    expect(body.items.find((i) => i.item_id === rejected)).toMatchObject({
      status: 'rejected',
      status_reason: 'insufficient_complexity',
    });

    const onlyRejected = (
      await asWallet(t, seller, 'GET', '/api/v1/seller/items?status=rejected')
    ).json() as ListBody;
    expect(onlyRejected.items.map((i) => i.item_id)).toEqual([rejected]);
    expect(onlyRejected.pagination.total).toBe(1);
    const page = (
      await asWallet(t, seller, 'GET', '/api/v1/seller/items?limit=2&offset=1')
    ).json() as ListBody;
    expect(page.items.map((i) => i.item_id)).toEqual([pending, rejected]);
    expect(page.pagination).toEqual({ limit: 2, offset: 1, total: 4 });
    for (const [q, code] of [
      ['status=live', 'invalid_status'],
      ['limit=0', 'invalid_limit'],
      ['limit=101', 'invalid_limit'],
      ['offset=-1', 'invalid_offset'],
    ]) {
      const res = await t.app.inject(`/api/v1/seller/items?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ error: code });
    }

    expect(await sellerStatus(t, seller, pending)).toEqual({
      status: 'pending_scan',
      reason: 'pending_review',
    });
    expect(await sellerStatus(t, seller, deleted)).toEqual({
      status: 'deleted',
      reason: 'removed',
    });
    expect(await sellerStatus(t, seller, rejected)).toEqual({
      status: 'rejected',
      reason: 'insufficient_complexity',
      findings: [{ rule: 'insufficient_complexity', kind: 'complexity' }],
    });
    // Another seller sees none of it.
    const other = newWallet();
    await listItem(t, other, { bytes: zipOf(uniqueProject()) });
    const res = await asWallet(t, other, 'GET', `/api/v1/seller/items/${active}/status`);
    expect(res.statusCode).toBe(404);
    expect(
      ((await asWallet(t, other, 'GET', '/api/v1/seller/items')).json() as ListBody).pagination
        .total,
    ).toBe(1);
  });
});

describe('DELETE /api/v1/items/{uuid}', () => {
  it('owner only, idempotent, gone from search, detail and public status at once; buyers keep their orders', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const id = await listItem(t, seller, {
      bytes: zipOf(uniqueProject()),
      metadata: {
        title: 'Quasar telemetry collector',
        description: 'Collects quasar telemetry',
        tech_stack: 'Rust',
        prices: { USDC: 1 },
      },
    });
    await t.work();
    expect((await t.app.inject(`/api/v1/items/${id}`)).statusCode).toBe(200);
    const { order } = await clientFor(t.app, buyer).acquire(id);

    const stranger = newWallet();
    await listItem(t, stranger, { bytes: zipOf(uniqueProject()) });
    const notOwner = await asWallet(t, stranger, 'DELETE', `/api/v1/items/${id}`);
    expect(notOwner.statusCode).toBe(404);
    const missing = await asWallet(t, seller, 'DELETE', `/api/v1/items/${crypto.randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(notOwner.json()).toEqual(missing.json());

    for (let i = 0; i < 2; i++) {
      const res = await asWallet(t, seller, 'DELETE', `/api/v1/items/${id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    }
    expect((await t.app.inject(`/api/v1/items/${id}`)).statusCode).toBe(404);
    expect((await t.app.inject(`/api/v1/items/${id}/status`)).statusCode).toBe(404);
    const search = await t.app.inject(
      `/api/v1/search?q=${encodeURIComponent('quasar telemetry collector')}`,
    );
    expect((search.json() as Array<{ id: string }>).map((r) => r.id)).not.toContain(id);

    const links = await clientFor(t.app, buyer).getOrder(order.order_id);
    const dl = await clientFor(t.app, buyer).download(links.download_url);
    expect(dl.bytes.length).toBeGreaterThan(0);
  });

  it('deleting a listing still waiting for its scan cancels the scan', async () => {
    const seller = newWallet();
    const id = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    await asWallet(t, seller, 'DELETE', `/api/v1/items/${id}`);
    await t.work();
    expect(await sellerStatus(t, seller, id)).toEqual({ status: 'deleted', reason: 'removed' });
  });
});

describe('retention cleanup', () => {
  it('purges deleted rows and their bytes; keeps bytes an order needs but hides the row', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const unsold = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const sold = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    await t.work();
    const { order } = await clientFor(t.app, buyer).acquire(sold);
    const { sql } = t.runtime.deps;
    const keys = Object.fromEntries(
      (
        await sql<
          { id: string; archiveKey: string }[]
        >`select id, archive_key from items where id in (${unsold}, ${sold})`
      ).map((r) => [r.id, r.archiveKey]),
    );
    for (const id of [unsold, sold]) await asWallet(t, seller, 'DELETE', `/api/v1/items/${id}`);

    const res = await purgeDeleted(t.runtime.deps);
    expect(res.deleted).toBeGreaterThanOrEqual(1);
    expect(res.hidden).toBeGreaterThanOrEqual(1);
    expect((await sql`select 1 from items where id = ${unsold}`).length).toBe(0);
    expect(await t.runtime.deps.storage.stat(keys[unsold]!)).toBeUndefined();
    expect(await t.runtime.deps.storage.stat(keys[sold]!)).toBeDefined();

    const list = (await asWallet(t, seller, 'GET', '/api/v1/seller/items')).json() as ListBody;
    expect(list.items.map((i) => i.item_id)).not.toContain(unsold);
    expect(list.items.map((i) => i.item_id)).not.toContain(sold);
    const links = await clientFor(t.app, buyer).getOrder(order.order_id);
    const dl = await clientFor(t.app, buyer).download(links.download_url);
    expect(dl.sha256).toBe(dl.statedSha256);
  });

  it('a rejected listing leaves the inventory and its bytes go after the retention; the ban stays', async () => {
    const seller = newWallet();
    const trivial = zipOf({ 'index.js': `console.log(${Date.now()});\n` });
    const id = await listItem(t, seller, { bytes: trivial });
    await t.work();
    expect(await sellerStatus(t, seller, id)).toMatchObject({ status: 'rejected' });
    const [row] = await t.runtime.deps.sql<{ archiveKey: string }[]>`
      select archive_key from items where id = ${id}`;
    expect(await t.runtime.deps.storage.stat(row!.archiveKey)).toBeDefined();
    const res = await purgeDeleted(t.runtime.deps);
    expect(res.rejected).toBeGreaterThanOrEqual(1);
    expect(await t.runtime.deps.storage.stat(row!.archiveKey)).toBeUndefined();
    const list = (await asWallet(t, seller, 'GET', '/api/v1/seller/items')).json() as ListBody;
    expect(list.items.map((i) => i.item_id)).not.toContain(id);
    const again = await upload(t, newWallet(), { bytes: trivial });
    expect(again.first.statusCode).toBe(403);
    expect(again.first.json()).toMatchObject({ error: 'code_previously_rejected' });
  });
});
