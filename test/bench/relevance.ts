import { type Half, halfOf } from './relevance-half.js';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { type SearchVariant } from '../../src/domain/search/rank.js';
import { searchItems } from '../../src/domain/search/search.js';
import type { Sql } from '../../src/db/index.js';
import type { Embedder } from '../../src/embeddings/embedder.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { seedListing, seedSeller } from '../helpers/catalog.js';
import { FRESH_QUERIES } from './relevance-fresh-set.js';
import { FRESH2_QUERIES } from './relevance-fresh2-set.js';
import { FRESH3_QUERIES } from './relevance-fresh3-set.js';
import { FRESH4_QUERIES } from './relevance-fresh4-set.js';
import { FRESH5_QUERIES } from './relevance-fresh5-set.js';
import { FRESH6_QUERIES } from './relevance-fresh6-set.js';
import { FRESH7_QUERIES } from './relevance-fresh7-set.js';
import { FRESH8_QUERIES } from './relevance-fresh8-set.js';
import { PARAPHRASE_LISTINGS, PARAPHRASE_QUERIES } from './relevance-paraphrase-set.js';
import { TASK_QUERIES } from './relevance-tasks-set.js';
import { BUYER_QUERIES, buyerPhrasing } from './relevance-buyer-set.js';
import {
  QUERY_KINDS,
  RELEVANCE_LISTINGS,
  RELEVANCE_QUERIES,
  type RelevanceListing,
  type RelevanceQuery,
} from './relevance-set.js';

/**
 * Relevance benchmark (issue 11): loads the relevance set's listings into an empty embedded
 * catalogue, runs every query through the real search with each ranking variant, and reports per
 * query kind and per half of the set (see `halfOf`):
 * - nDCG@10 with gain 3 for a best answer and 1 for an acceptable one;
 * - hit@1: the first result is a best answer;
 * - MRR@20: reciprocal rank of the first best answer within the results;
 * - gap: similarity of the best answer found (0 if absent) minus that of the highest-ranked unrelated
 *   listing (0 if none was returned), averaged over queries: how clearly a match stands out;
 * - results: mean number of results returned (the relevance floor at work).
 * Every set (RELEVANCE_SETS: issue 11's, and issue 30's paraphrase set) is reported per query family,
 * tuning and held-out half apart. Goals on the built-in default (fused), held-out half of the
 * paraphrase set: paraphrase hit@1 ≥ 0.8, all queries hit@1 ≥ 0.9, gap ≥ 1.5; no family of issue
 * 11's set worse than before. BENCH_RELEVANCE_SETS=paraphrase and BENCH_RELEVANCE_VARIANTS=fused
 * narrow a run. A third set, FRESH_SET ("fresh set (never tuned on)", relevance-fresh-set.ts), runs
 * after them: written blind over the paraphrase catalogue, every query held out, outside
 * RELEVANCE_SETS so that the tuning tool and relevance-explain never see it.
 *
 * Stop 55 added two more blind sets over the paraphrase catalogue: the second fresh set (split into
 * halves, in RELEVANCE_SETS), the third (all held out, like the first; tuning data from stop 56)
 * and the fourth (sealed until stop 56's one reading, held out since). Stop 58 added the fifth
 * (read once sealed, then tuning data) and the sixth (read once sealed, held out, then tuning data
 * from stop 59's levers). Stop 59 added the seventh (sealed: read only when named) and, once the
 * seventh was read, the eighth (sealed the same way).
 *
 * Set BENCH_RELEVANCE_VERBOSE=1 to print every fused query, not only those whose first result is
 * not a best answer. BENCH_RELEVANCE_HALF=tuning hides the held-out half (its queries, lines and
 * figures) while iterating on data or calibration, so that it stays a clean estimate until read once;
 * it hides the fresh set entirely.
 */

const VARIANTS: SearchVariant[] = ['lexical', 'vector', 'fused'];

export { halfOf, type Half } from './relevance-half.js';

export interface Judgment {
  ndcg10: number;
  hit1: number;
  mrr20: number;
  gap: number;
  wantedSim: number;
  unrelatedSim: number;
  results: number;
}

export function judge(
  q: RelevanceQuery,
  ranked: Array<{ key: string; similarity: number }>,
): Judgment {
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

export function mean(js: Judgment[], f: (x: Judgment) => number): number {
  return +(js.reduce((s, x) => s + f(x), 0) / Math.max(1, js.length)).toFixed(3);
}

/** Listings in a fresh in-memory catalogue (the relevance set's by default); `keyOf` maps item ids to keys. */
export async function relevanceCatalogue(
  listings: Array<{
    key: string;
    title: string;
    techStack: string;
    description: string;
  }> = RELEVANCE_LISTINGS,
) {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    // the built-in embedder's option (words or sentence) as the bench's environment names it
    EMBEDDINGS_BUILTIN: process.env.EMBEDDINGS_BUILTIN,
    EMBEDDINGS_SENTENCE_SHARE: process.env.EMBEDDINGS_SENTENCE_SHARE,
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const { sql, embedder } = runtime.deps as { sql: Sql; embedder: Embedder };
  const seller = await seedSeller(sql);
  const keyOf = new Map<string, string>();
  const t0 = performance.now();
  for (const l of listings) keyOf.set(await seedListing(sql, embedder, { ...l, seller }), l.key);
  return { runtime, sql, embedder, keyOf, indexMs: performance.now() - t0 };
}

/**
 * The split judgment sets: issue 11's, issue 30's paraphrase set and stop 55's second fresh set
 * (relevance-fresh2-set.ts, written blind, over the paraphrase set's catalogue).
 */
export const RELEVANCE_SETS: Array<{
  name: string;
  listings: RelevanceListing[];
  queries: RelevanceQuery[];
}> = [
  { name: 'issue11', listings: RELEVANCE_LISTINGS, queries: RELEVANCE_QUERIES },
  { name: 'paraphrase', listings: PARAPHRASE_LISTINGS, queries: PARAPHRASE_QUERIES },
  // stop 55's blind set over the same catalogue, split like the paraphrase set
  { name: 'fresh2', listings: PARAPHRASE_LISTINGS, queries: FRESH2_QUERIES },
];

/** Issue 30's fresh set: never tuned on, so all of it is held out and no tool but this bench reads it. */
export const FRESH_SET = {
  name: 'fresh',
  label: 'fresh set (never tuned on)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH_QUERIES,
};

/**
 * Stop 55's third fresh set: written blind in the buyer's words and read once as held out (stop
 * 55); tuning data from stop 56, whose lexicon phrases were written from its misses. Still read
 * whole, outside BENCH_RELEVANCE_HALF=tuning runs (name it: BENCH_RELEVANCE_SETS=fresh3).
 */
export const FRESH3_SET = {
  name: 'fresh3',
  label: 'third fresh set (tuning data since stop 56)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH3_QUERIES,
};

/**
 * Stop 55's fourth fresh set: written blind, sealed until stop 56's one held-out reading (the
 * lexicon's sibling phrases, docs/search-meaning.md "Stop 56"), held out at stops 56 and 57;
 * tuning data from stop 58, when the fifth set took its place. Read whole by every run but a
 * tuning one (name it: BENCH_RELEVANCE_SETS=fresh3,fresh4).
 */
export const FRESH4_SET = {
  name: 'fresh4',
  label: 'fourth fresh set (tuning data since stop 58)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH4_QUERIES,
};

/**
 * Stop 58's fifth fresh set: written blind, sealed until stop 58's one held-out reading (a lever
 * that failed it, docs/search-meaning.md "Stop 58"); tuning data from stop 58's second lever,
 * whose lexicon phrases were written from its misses. Read whole by every run but a tuning one
 * (name it: BENCH_RELEVANCE_SETS=fresh3,fresh4,fresh5).
 */
export const FRESH5_SET = {
  name: 'fresh5',
  label: 'fifth fresh set (tuning data since stop 58)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH5_QUERIES,
};

/**
 * Stop 58's sixth fresh set: written blind, sealed until stop 58's second reading (the lexicon
 * phrases of "Stop 58, second lever", shipped on it); tuning data from stop 59's levers, written
 * from its misses while the seventh set was sealed. Read whole by every run but a tuning one
 * (name it: BENCH_RELEVANCE_SETS=fresh3,fresh4,fresh5,fresh6).
 */
export const FRESH6_SET = {
  name: 'fresh6',
  label: 'sixth fresh set (tuning data since stop 59)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH6_QUERIES,
};

/**
 * Stop 59's seventh fresh set: written blind, sealed until stop 59's one reading of its three
 * levers (docs/search-meaning.md, "Stop 59: the one reading on the sealed seventh set"), whose
 * output printed its misses: tuning data for the next lever, read whole by every run but a tuning
 * one (name it: BENCH_RELEVANCE_SETS=fresh3,fresh4,fresh5,fresh6,fresh7).
 */
export const FRESH7_SET = {
  name: 'fresh7',
  label: 'seventh fresh set (read once at stop 59, tuning data since)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH7_QUERIES,
};

/**
 * Stop 59's eighth fresh set: written blind after the seventh was read, sealed until stop 59's
 * second reading (the lexicon phrases of "Stop 59, second round", shipped on it), whose output
 * printed its misses: tuning data since, read whole by every run but a tuning one (name it:
 * BENCH_RELEVANCE_SETS=fresh3,fresh4,fresh5,fresh6,fresh7,fresh8). The next lever needs a new set.
 */
export const FRESH8_SET = {
  name: 'fresh8',
  label: 'eighth fresh set (read once at stop 59, tuning data since)',
  listings: PARAPHRASE_LISTINGS,
  queries: FRESH8_QUERIES,
};

/**
 * Stop 43's set (relevance-tasks-set.ts): all tuning, no held-out half, so it is read with the
 * tuning halves (BENCH_RELEVANCE_HALF=tuning too) and never gives a goal figure.
 */
export const TASKS_SET = {
  name: 'tasks',
  label: "stop 43's tasks set (tuning only)",
  listings: PARAPHRASE_LISTINGS,
  queries: TASK_QUERIES,
};

/**
 * Stop 44's set (relevance-buyer-set.ts): two buyer phrasings per listing, all tuning like the
 * tasks set, never a goal figure.
 */
export const BUYER_SET = {
  name: 'buyer',
  label: "stop 44's buyer set (tuning only)",
  listings: PARAPHRASE_LISTINGS,
  queries: BUYER_QUERIES,
  /** each query's phrasing, reported apart: entries written from first phrasings, read on second */
  groupOf: buyerPhrasing,
};

/** The sets a `relevance` run reads, in order: BENCH_RELEVANCE_SETS narrows, HALF=tuning drops the fresh sets. */
/** A judgment set as a `relevance` run reads it. */
export interface BenchSet {
  name: string;
  label?: string;
  listings: RelevanceListing[];
  queries: RelevanceQuery[];
  heldOutOnly: boolean;
  tuningAll?: boolean;
  groupOf?: (q: RelevanceQuery) => string;
}

export function benchSetsFor(env: Record<string, string | undefined>): BenchSet[] {
  const only = env.BENCH_RELEVANCE_SETS?.split(',');
  const tuningOnly = env.BENCH_RELEVANCE_HALF === 'tuning';
  const sets: BenchSet[] = [
    ...RELEVANCE_SETS.map((set) => ({ ...set, heldOutOnly: false })),
    { ...TASKS_SET, heldOutOnly: false, tuningAll: true },
    { ...BUYER_SET, heldOutOnly: false, tuningAll: true },
    ...(tuningOnly
      ? []
      : [
          { ...FRESH_SET, heldOutOnly: true },
          { ...FRESH3_SET, heldOutOnly: true },
          { ...FRESH4_SET, heldOutOnly: true },
          { ...FRESH5_SET, heldOutOnly: true },
          { ...FRESH6_SET, heldOutOnly: true },
          { ...FRESH7_SET, heldOutOnly: true },
          // sealed: only a run that names it reads it, so no default run reads it by accident
          { ...FRESH8_SET, heldOutOnly: true },
        ]),
  ];
  return only ? sets.filter((set) => only.includes(set.name)) : sets;
}

export async function benchRelevance(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const verbose = env.BENCH_RELEVANCE_VERBOSE === '1';
  const tuningOnly = env.BENCH_RELEVANCE_HALF === 'tuning';
  if (env.BENCH_RELEVANCE_HALF !== undefined && !tuningOnly)
    throw new Error(
      `BENCH_RELEVANCE_HALF: only "tuning" is known, not ${env.BENCH_RELEVANCE_HALF}`,
    );
  const variants = (env.BENCH_RELEVANCE_VARIANTS?.split(',') ?? VARIANTS) as SearchVariant[];
  const out: Record<string, unknown> = {};
  for (const set of benchSetsFor(env)) {
    console.log(
      `\n--- set ${set.label ?? set.name}: ${set.listings.length} listings, ${set.queries.length} queries ---`,
    );
    out[set.name] = await benchSet(
      set.listings,
      set.queries,
      variants,
      verbose,
      tuningOnly,
      set.heldOutOnly,
      set.tuningAll,
      'groupOf' in set ? set.groupOf : undefined,
    );
  }
  return out;
}

async function benchSet(
  listings: RelevanceListing[],
  queries: RelevanceQuery[],
  variants: SearchVariant[],
  verbose: boolean,
  tuningOnly = false,
  heldOutOnly = false,
  tuningAll = false,
  groupOf?: (q: RelevanceQuery) => string,
): Promise<Record<string, unknown>> {
  const halfFor = (q: RelevanceQuery): Half =>
    heldOutOnly ? 'held-out' : tuningAll ? 'tuning' : halfOf(q);
  if (tuningOnly) queries = queries.filter((q) => halfFor(q) === 'tuning');
  const { runtime, sql, embedder, keyOf, indexMs } = await relevanceCatalogue(listings);
  try {
    const rows: Array<Record<string, string | number>> = [];
    const misses: string[] = [];
    let searchMs = 0;
    let searches = 0;
    const summary: Record<string, Record<string, number>> = {};
    for (const variant of variants) {
      const groups = new Map<string, Judgment[]>();
      const add = (k: string, j: Judgment) => groups.set(k, [...(groups.get(k) ?? []), j]);
      for (const q of queries) {
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
        const half = halfFor(q);
        for (const kind of [q.kind, 'all']) for (const h of [half, 'all']) add(`${h}|${kind}`, j);
        if (groupOf) add(`group|${groupOf(q)}`, j);
        if (variant === 'fused' && (j.hit1 === 0 || verbose))
          misses.push(
            `${j.hit1 ? '  ' : '✗ '}${half.padEnd(8)} [${q.kind}] ${q.q.slice(0, 64)} → ${ranked
              .slice(0, 3)
              .map((r) => `${r.key} ${r.similarity}`)
              .join(', ')} (want ${q.best.join('|')})`,
          );
      }
      for (const kind of [...QUERY_KINDS, 'all']) {
        const g = (h: string) => groups.get(`${h}|${kind}`) ?? [];
        const all = g('all');
        rows.push({
          variant,
          kind,
          'tune n': g('tuning').length,
          'tune hit1': mean(g('tuning'), (x) => x.hit1),
          'tune ndcg': mean(g('tuning'), (x) => x.ndcg10),
          'tune gap': mean(g('tuning'), (x) => x.gap),
          'held n': g('held-out').length,
          'held hit1': mean(g('held-out'), (x) => x.hit1),
          'held ndcg': mean(g('held-out'), (x) => x.ndcg10),
          'held gap': mean(g('held-out'), (x) => x.gap),
          'all hit1': mean(all, (x) => x.hit1),
          'all ndcg': mean(all, (x) => x.ndcg10),
          'all mrr20': mean(all, (x) => x.mrr20),
          'all gap': mean(all, (x) => x.gap),
          results: mean(all, (x) => x.results),
        });
        for (const h of ['tuning', 'held-out', 'all'])
          summary[`${variant} ${h} ${kind}`] = {
            hit1: mean(g(h), (x) => x.hit1),
            ndcg10: mean(g(h), (x) => x.ndcg10),
            gap: mean(g(h), (x) => x.gap),
          };
      }
      // a set's own grouping (the buyer set's first and second phrasings), all queries of each
      for (const [k, js] of groups)
        if (k.startsWith('group|')) {
          const fig = {
            n: js.length,
            hit1: mean(js, (x) => x.hit1),
            ndcg10: mean(js, (x) => x.ndcg10),
            gap: mean(js, (x) => x.gap),
          };
          summary[`${variant} ${k.slice(6)}`] = fig;
          console.log(
            `${variant} ${k.slice(6)}: n ${fig.n}, hit@1 ${fig.hit1}, nDCG@10 ${fig.ndcg10}, gap ${fig.gap}`,
          );
        }
    }
    if (misses.length) console.log(misses.join('\n'));
    // the embedder's own cost per query (the built-in one runs in process): wall and CPU time
    const e0 = performance.now();
    const c0 = process.cpuUsage();
    for (let r = 0; r < 5; r++) for (const q of queries) await embedder.embed([q.q]);
    const cpu = process.cpuUsage(c0);
    const embedMs = (performance.now() - e0) / (5 * queries.length);
    if (tuningOnly)
      for (const row of rows)
        for (const k of Object.keys(row))
          if (!k.startsWith('tune ') && k !== 'variant' && k !== 'kind') delete row[k];
    // a set with no tuning half: its empty tuning columns and figures left out
    if (tuningAll) {
      for (const row of rows)
        for (const k of Object.keys(row)) if (k.startsWith('held ')) delete row[k];
      for (const k of Object.keys(summary)) if (k.includes(' held-out ')) delete summary[k];
    }
    if (heldOutOnly) {
      for (const row of rows)
        for (const k of Object.keys(row)) if (k.startsWith('tune ')) delete row[k];
      for (const k of Object.keys(summary)) if (k.includes(' tuning ')) delete summary[k];
    }
    console.table(rows);
    const fused = summary['fused held-out all'];
    const para = summary['fused held-out paraphrase'];
    return {
      embedder: embedder.model,
      listings: listings.length,
      queries: queries.length,
      split: heldOutOnly
        ? 'none: every query held out (never tuned on)'
        : tuningAll
          ? 'none: every query tuning (no goal figure)'
          : 'sha256(query text), first bit: 0 tuning, 1 held-out',
      index_ms_per_listing: +(indexMs / listings.length).toFixed(2),
      search_ms_mean: +(searchMs / searches).toFixed(2),
      embed_ms_per_query: +embedMs.toFixed(3),
      embed_cpu_ms_per_query: +((cpu.user + cpu.system) / 1000 / (5 * queries.length)).toFixed(3),
      summary: tuningOnly
        ? Object.fromEntries(Object.entries(summary).filter(([k]) => k.includes(' tuning ')))
        : summary,
      half: tuningOnly ? 'tuning only (BENCH_RELEVANCE_HALF)' : 'both',
      goals_met: !!fused && !!para && para.hit1! >= 0.8 && fused.hit1! >= 0.9 && fused.gap! >= 1.5,
      goal: 'fused, held-out half: paraphrase hit@1 >= 0.8, all hit@1 >= 0.9, similarity gap >= 1.5',
    };
  } finally {
    await runtime.close();
  }
}
