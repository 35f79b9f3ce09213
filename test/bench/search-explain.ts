import { searchItems } from '../../src/domain/search/search.js';
import type { SearchQuery } from '../../src/wire/items.js';
import { loadCatalogue, queries, rng } from './search.js';

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the search's candidate statement, as the search sends it (after its
 * transaction-local settings), for the search bench's queries on one catalogue size, with each
 * query's median process CPU over 5 searches:
 * `tsx test/bench/search-explain.ts [size=100000] [query numbers, default the filtered ones]`.
 * EXPLAIN_TIMING=on adds per-node times (their clock reads cost more than the nodes in PGlite).
 * EXPLAIN_PRINT=summary prints the vector scans, buffers and times only. BENCH_SEARCH_REUSE_DIR as
 * for the search bench (the 100k catalogue takes minutes to seed).
 */
type Sent = { string: string; parameters: unknown[] };

const n = Number(process.argv[2] ?? 100_000);
const picked = (process.argv[3] ?? '').split(',').filter(Boolean).map(Number);
const summary = process.env.EXPLAIN_PRINT === 'summary';
const c = await loadCatalogue(n, 100, { reuseDir: process.env.BENCH_SEARCH_REUSE_DIR });
const { sql, embedder } = c.runtime.deps;
const options = sql.options as { debug?: unknown };
const qs = queries(rng(7));
const opts = { efSearch: 100, ratingThreshold: 5 };
let sent: Sent[] = [];
// postgres.js tells each statement it builds; the parameters are copied: sending serialises them
const listen = (_: number, string: string, parameters: unknown[]) =>
  sent.push({ string, parameters: [...parameters] });
const chosen = picked.length
  ? picked
  : qs.map((q, i) => (q.tech_stack || q.min_price !== undefined ? i : -1)).filter((i) => i >= 0);
for (const q of qs) await searchItems(sql, embedder, q, opts); // warm-up
for (const i of chosen) {
  const q: SearchQuery = qs[i]!;
  const cpu: number[] = [];
  options.debug = listen;
  for (let k = 0; k < 5; k++) {
    sent = [];
    const c0 = process.cpuUsage();
    await searchItems(sql, embedder, q, opts);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
  }
  options.debug = undefined;
  const settings = sent.find((s) => s.string.includes("set_config('hnsw.ef_search'"))!;
  const cand = sent.find((s) => s.string.includes('vec_pool'))!;
  const timing = process.env.EXPLAIN_TIMING === 'on' ? 'on' : 'off';
  const plan = await sql.begin(async (tx) => {
    await tx.unsafe(settings.string, settings.parameters as never[]);
    return tx.unsafe(
      `explain (analyze, buffers, costs off, timing ${timing}) ${cand.string}`,
      cand.parameters as never[],
    );
  });
  const median = cpu.sort((a, b) => a - b)[2]!;
  console.log(
    `\n### query ${i}: ${JSON.stringify(q)} CPU median of 5 searches ${median.toFixed(1)} ms`,
  );
  for (const r of plan as unknown as Array<Record<string, string>>) {
    const line = Object.values(r)[0]!;
    if (!summary || /Scan using items_|Buffers: shared|Time:|Rows Removed by Filter/.test(line))
      console.log(line);
  }
}
await c.runtime.close();
