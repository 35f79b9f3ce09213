import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensurePriceIndexes,
  PRICE_INDEX,
  priceBound,
  priceIndexName,
} from '../../src/domain/search/vectors.js';
import { seedListing, TASKS } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * The cheapest quarter and half of a large catalogue get a vector index each (vectors.ts,
 * PRICE_INDEX), so that a budget filter walks a graph of what fits it. Here the threshold is
 * lowered to a few listings; the search must answer exactly as it does without the indexes.
 */
let t: TestContext;
const defaults = { ...PRICE_INDEX };

beforeAll(async () => {
  t = await startTestApp();
  const { sql, embedder } = t.runtime.deps;
  // 40 listings priced 0.5, 1.0, ... 20.0 USDC
  for (let k = 0; k < 40; k++) {
    const task = TASKS[k % TASKS.length]!;
    await seedListing(sql, embedder, {
      title: `${task} ${k}`,
      description: `${task}, edition ${k} with tests and docs.`,
      techStack: 'Python',
      price: (k + 1) / 2,
    });
  }
});
afterAll(async () => {
  Object.assign(PRICE_INDEX, defaults);
  await t?.close();
});

async function search(query: Record<string, string>) {
  const res = await t.app.inject({ url: '/api/v1/search', query });
  expect(res.statusCode).toBe(200);
  return (res.json() as Array<{ id: string; similarity: number }>).map((r) => [r.id, r.similarity]);
}

async function scans(name: string): Promise<number> {
  const { sql } = t.runtime.deps;
  await sql`select pg_stat_force_next_flush()`;
  await sql`select 1`;
  const [row] = await sql<{ scans: number }[]>`
    select coalesce(sum(idx_scan), 0)::int as scans from pg_stat_user_indexes
    where indexrelname = ${name}`;
  return row?.scans ?? 0;
}

describe('price-ceiling vector indexes', () => {
  it('rounds a bound up to two significant digits, whole cents at least', () => {
    expect(priceBound(10_100_000)).toBe(11_000_000);
    expect(priceBound(10_000_000)).toBe(10_000_000);
    expect(priceBound(370_000)).toBe(370_000);
    expect(priceBound(1)).toBe(10_000);
  });

  it('are made for a large enough catalogue, and a budget filter walks one and answers as without it', async () => {
    const { sql, embedder } = t.runtime.deps;
    const dims = embedder.dimensions;
    const queries: Array<Record<string, string>> = [
      { q: 'csv converter', max_price: '5' },
      { q: 'token bucket rate limiter', min_price: '1', max_price: '4.5' },
      { q: 'invoice generator', max_price: '10', tech_stack: 'python' },
      { q: 'web crawler', max_price: '100' },
      { q: 'login service' },
    ];
    const before = [];
    for (const q of queries) before.push(await search(q));

    Object.assign(PRICE_INDEX, { minListings: 41 });
    expect(await ensurePriceIndexes(sql, dims)).toEqual([]);
    Object.assign(PRICE_INDEX, { minListings: 10 });
    // the cheapest quarter is 10 listings (up to 5.0 USDC), the cheapest half 20 (up to 10.0)
    expect(await ensurePriceIndexes(sql, dims)).toEqual([5_000_000, 10_000_000]);
    // again: nothing new (a bound near an existing one reuses it)
    expect(await ensurePriceIndexes(sql, dims)).toEqual([5_000_000, 10_000_000]);
    const [idx] =
      await sql`select indexdef from pg_indexes where indexname = ${priceIndexName(dims, 5_000_000)}`;
    expect(idx?.indexdef).toContain('price_micro <= 5000000');

    // (which budgets the planner walks through an index depends on its costs: at this size the
    // broader ones; a budget of 5 keeps a quarter of the catalogue, the whole cheapest quarter)
    const walked = async () =>
      (await scans(priceIndexName(dims, 5_000_000))) +
      (await scans(priceIndexName(dims, 10_000_000)));
    const w0 = await walked();
    const after = [];
    for (const q of queries) after.push(await search(q));
    expect(after).toEqual(before);
    expect(await walked()).toBeGreaterThan(w0);
  });

  it('a price index whose bound drifted out of the reuse band is dropped once its replacement is built', async () => {
    const { sql, embedder } = t.runtime.deps;
    const dims = embedder.dimensions;
    Object.assign(PRICE_INDEX, { minListings: 10 });
    expect(await ensurePriceIndexes(sql, dims)).toEqual([5_000_000, 10_000_000]);
    // every price four times higher: the quarter and half now end at 20 and 40 USDC
    await sql`update items set price_micro = price_micro * 4`;
    try {
      expect(await ensurePriceIndexes(sql, dims)).toEqual([20_000_000, 40_000_000]);
      const names = await sql<{ indexname: string }[]>`
        select indexname from pg_indexes
        where tablename = 'items' and starts_with(indexname, ${`items_hnsw_${dims}_price_le_`})`;
      // the old ones no budget needs any more are gone: every write paid for them
      expect(names.map((r) => r.indexname).sort()).toEqual(
        [priceIndexName(dims, 20_000_000), priceIndexName(dims, 40_000_000)].sort(),
      );
    } finally {
      await sql`update items set price_micro = price_micro / 4`;
    }
  });
});
