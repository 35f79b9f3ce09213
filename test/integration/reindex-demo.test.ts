import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { reindexAll } from '../../src/domain/search/index-item.js';
import { ensureVectorIndex } from '../../src/domain/search/vectors.js';
import { BuiltinEmbedder } from '../../src/embeddings/builtin.js';
import { searchItems } from '../../src/domain/search/search.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('demo data', () => {
  it('loads every demo listing once, with a real archive in the blob store, and is idempotent', async () => {
    const first = await loadDemoData(t.runtime.deps);
    expect(first).toEqual({ added: DEMO_LISTINGS.length, skipped: 0 });
    const again = await loadDemoData(t.runtime.deps);
    expect(again).toEqual({ added: 0, skipped: DEMO_LISTINGS.length });
    const rows = await t.runtime.deps.sql<{ archiveKey: string; archiveSize: number }[]>`
      select archive_key, archive_size from items where status = 'active'`;
    expect(rows).toHaveLength(DEMO_LISTINGS.length);
    for (const r of rows.slice(0, 5)) {
      expect((await t.runtime.deps.storage.stat(r.archiveKey))?.size).toBe(r.archiveSize);
    }
    const res = await t.app.inject({ url: '/api/v1/search', query: { q: 'discord bot' } });
    expect(res.json()[0].metadata.title).toBe('Discord moderation bot');
  });
});

describe('reindex after a dimension change', () => {
  it('recomputes every vector with the new embedder, reports progress, and search uses the new index', async () => {
    const { sql } = t.runtime.deps;
    const small = new BuiltinEmbedder(64);
    const seen: Array<[number, number]> = [];
    const res = await reindexAll(sql, small, {
      batchSize: 10,
      onProgress: (p) => seen.push([p.done, p.total]),
    });
    expect(res.done).toBe(DEMO_LISTINGS.length);
    expect(seen[0]).toEqual([0, DEMO_LISTINGS.length]);
    expect(seen.at(-1)).toEqual([DEMO_LISTINGS.length, DEMO_LISTINGS.length]);
    expect(seen.length).toBe(Math.ceil(DEMO_LISTINGS.length / 10) + 1);
    await ensureVectorIndex(sql, 64);
    const [{ n } = { n: 0 }] = await sql<
      { n: number }[]
    >`select count(*) as n from items where embedding_dims = 64`;
    expect(n).toBe(DEMO_LISTINGS.length);
    // a second run finds nothing stale
    expect((await reindexAll(sql, small)).done).toBe(0);
    const results = await searchItems(
      sql,
      small,
      { q: 'discord bot' },
      { efSearch: 40, ratingThreshold: 5 },
    );
    expect(results[0]!.metadata.title).toBe('Discord moderation bot');
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx.unsafe(
        `explain select id from items where status = 'active' and embedding_dims = 64
         order by embedding::vector(64) <=> '[${new Array(64).fill(0.1).join(',')}]'::vector(64) limit 5`,
      );
    });
    expect(JSON.stringify(plan)).toContain('items_embedding_hnsw_64');
  });
});
