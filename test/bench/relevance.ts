import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { searchItems, type SearchVariant } from '../../src/domain/search/search.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { seedListing, seedSeller } from '../helpers/catalog.js';
import {
  QUERY_KINDS,
  RELEVANCE_LISTINGS,
  RELEVANCE_QUERIES,
  type RelevanceQuery,
} from './relevance-set.js';

/**
 * Relevance benchmark (issue 11): loads the relevance set's listings into an empty embedded
 * catalogue, runs every query through the real search with each ranking variant, and reports per
 * query kind:
 * - nDCG@10 with gain 3 for a best answer and 1 for an acceptable one;
 * - hit@1: the first result is a best answer;
 * - MRR@20: reciprocal rank of the first best answer within the results;
 * - gap: similarity of the best answer found (0 if absent) minus that of the highest-ranked unrelated
 *   listing (0 if none was returned), averaged over queries: how clearly a match stands out;
 * - results: mean number of results returned (the relevance floor at work).
 * Goals on the built-in default (fused): hit@1 ≥ 0.9, nDCG@10 ≥ 0.9, gap ≥ 1.5.
 */

const VARIANTS: SearchVariant[] = ['lexical', 'vector', 'fused'];

interface Row {
  variant: string;
  kind: string;
  queries: number;
  ndcg10: number;
  hit1: number;
  mrr20: number;
  gap: number;
  wanted_sim: number;
  unrelated_sim: number;
  results: number;
}

function judge(q: RelevanceQuery, ranked: Array<{ key: string; similarity: number }>) {
  const gain = (k: string) => (q.best.includes(k) ? 3 : q.ok?.includes(k) ? 1 : 0);
  const dcg = ranked.slice(0, 10).reduce((s, r, i) => s + gain(r.key) / Math.log2(i + 2), 0);
  const ideal = [...q.best.map(() => 3), ...(q.ok ?? []).map(() => 1)]
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const firstBest = ranked.findIndex((r) => q.best.includes(r.key));
  const unrelated = ranked.find((r) => gain(r.key) === 0);
  const wantedSim = firstBest >= 0 ? ranked[firstBest]!.similarity : 0;
  const unrelatedSim = unrelated?.similarity ?? 0;
  return {
    ndcg10: dcg / ideal,
    hit1: firstBest === 0 ? 1 : 0,
    mrr20: firstBest >= 0 && firstBest < 20 ? 1 / (firstBest + 1) : 0,
    gap: wantedSim - unrelatedSim,
    wantedSim,
    unrelatedSim,
    results: ranked.length,
  };
}

export async function benchRelevance(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const { sql, embedder } = runtime.deps;
  const verbose = env.BENCH_RELEVANCE_VERBOSE === '1';
  try {
    const seller = await seedSeller(sql);
    const keyOf = new Map<string, string>();
    const t0 = performance.now();
    for (const l of RELEVANCE_LISTINGS)
      keyOf.set(await seedListing(sql, embedder, { ...l, seller }), l.key);
    const indexMs = performance.now() - t0;

    const rows: Row[] = [];
    const misses: string[] = [];
    let searchMs = 0;
    let searches = 0;
    for (const variant of VARIANTS) {
      const perKind = new Map<string, Array<ReturnType<typeof judge>>>();
      for (const q of RELEVANCE_QUERIES) {
        const s = performance.now();
        const res = await searchItems(
          sql,
          embedder,
          { q: q.q },
          { efSearch: 100, ratingThreshold: 5, variant },
        );
        searchMs += performance.now() - s;
        searches++;
        const ranked = res.map((r) => ({ key: keyOf.get(r.id)!, similarity: r.similarity }));
        const j = judge(q, ranked);
        for (const k of [q.kind, 'all']) perKind.set(k, [...(perKind.get(k) ?? []), j]);
        if (variant === 'fused' && (j.hit1 === 0 || verbose))
          misses.push(
            `${j.hit1 ? '  ' : '✗ '}[${q.kind}] ${q.q.slice(0, 70)} → ${ranked
              .slice(0, 3)
              .map((r) => `${r.key} ${r.similarity}`)
              .join(', ')} (want ${q.best.join('|')})`,
          );
      }
      for (const kind of [...QUERY_KINDS, 'all']) {
        const js = perKind.get(kind) ?? [];
        const mean = (f: (x: ReturnType<typeof judge>) => number) =>
          +(js.reduce((s, x) => s + f(x), 0) / Math.max(1, js.length)).toFixed(3);
        rows.push({
          variant,
          kind,
          queries: js.length,
          ndcg10: mean((x) => x.ndcg10),
          hit1: mean((x) => x.hit1),
          mrr20: mean((x) => x.mrr20),
          gap: mean((x) => x.gap),
          wanted_sim: mean((x) => x.wantedSim),
          unrelated_sim: mean((x) => x.unrelatedSim),
          results: mean((x) => x.results),
        });
      }
    }
    if (misses.length) console.log(misses.join('\n'));
    // the embedder's own cost per query (the built-in one runs in process)
    const e0 = performance.now();
    for (let r = 0; r < 5; r++) for (const q of RELEVANCE_QUERIES) await embedder.embed([q.q]);
    const embedMs = (performance.now() - e0) / (5 * RELEVANCE_QUERIES.length);
    console.table(rows);
    const fused = rows.find((r) => r.variant === 'fused' && r.kind === 'all')!;
    return {
      embedder: embedder.model,
      listings: RELEVANCE_LISTINGS.length,
      queries: RELEVANCE_QUERIES.length,
      index_ms_per_listing: +(indexMs / RELEVANCE_LISTINGS.length).toFixed(2),
      search_ms_mean: +(searchMs / searches).toFixed(2),
      embed_ms_per_query: +embedMs.toFixed(3),
      rows,
      goals_met: fused.hit1 >= 0.9 && fused.ndcg10 >= 0.9 && fused.gap >= 1.5,
      goal: 'fused, all queries: hit@1 >= 0.9, nDCG@10 >= 0.9, similarity gap >= 1.5',
    };
  } finally {
    await runtime.close();
  }
}
