import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { provisionAgent } from '../../src/domain/accounts/accounts.js';
import { searchItems } from '../../src/domain/search/search.js';
import { taskText } from '../../src/domain/search/stacks.js';
import { conceptEntryWords } from '../../src/domain/search/task-lexicon.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import type { SearchQuery } from '../../src/wire/items.js';
import { insertListings, rng } from './search.js';

/**
 * `npm run bench -- search_concept`: the worst case of the candidates by task concept (search.ts,
 * con_pool). Every one-word entry of the moderation concept sits in the description of just under
 * the 500 listings a selective word is capped at (LEX_DF_CAP), and in the title of only a few: the
 * title check then had every listing mentioning a word read to find the few titles (the full-text
 * index has no weight classes), and now reads the titles' own index (migration 463).
 *
 * Reported: the rows each form of the check reads for the same query (EXPLAIN ANALYZE: the index's
 * rows, and those the title condition then drops), and the whole search's p50 for this build and,
 * with BENCH_AB_BASE (a built package root, e.g. /work/base43), that build's searchItems on the same
 * catalogue, alternating query by query; the two must answer the same. BENCH_CONCEPT_LISTINGS sets
 * the catalogue size (8000), BENCH_CONCEPT_ROUNDS the rounds (5).
 */
const PER_WORD = 490;
const TITLES_PER_WORD = 3;
const QUERIES: SearchQuery[] = [
  { q: 'keep trolls and spammers out of my forum' },
  { q: 'kick out people posting junk in my community' },
  { q: 'stop toxic users from ruining our message board' },
  { q: 'mute people who keep flooding the comments with ads' },
];
const TOPICS = ['calendar', 'photo wall', 'newsletter', 'map', 'leaderboard', 'wiki', 'poll'];
const STACKS = ['TypeScript, Node.js', 'Python', 'Go', 'Rust', 'Ruby, Rails', 'PHP, Laravel'];

type Search = typeof searchItems;

export async function benchSearchConcept(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const n = Number(env.BENCH_CONCEPT_LISTINGS ?? 8000);
  const rounds = Number(env.BENCH_CONCEPT_ROUNDS ?? 5);
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  try {
    const { sql, embedder } = runtime.deps;
    // the concept's one-word entries, one lexeme each (moderation and moderate are one)
    const entries = conceptEntryWords(taskText('moderation'));
    const seller = (
      await provisionAgent(sql, `0x${randomBytes(20).toString('hex')}`, { payoutSalt: 'bench' })
    ).agent;
    const r = rng(11);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    const listings: Array<{ title: string; description: string; techStack: string }> = [];
    for (const [k, w] of entries.entries())
      for (let j = 0; j < PER_WORD; j++) {
        const topic = pick(TOPICS);
        listings.push(
          j < TITLES_PER_WORD
            ? {
                title: `Community ${w} bot ${k}-${j}`,
                description: `Keeps a ${topic} community tidy, with an audit trail.`,
                techStack: pick(STACKS),
              }
            : {
                title: `Community ${topic} ${k}-${j}`,
                description: `A ${topic} widget for community sites; mentions ${w} once, themed and responsive.`,
                techStack: pick(STACKS),
              },
        );
      }
    while (listings.length < n) {
      const topic = pick(TOPICS);
      listings.push({
        title: `${topic} ${listings.length}`,
        description: `A ${topic} for team sites, variant ${listings.length}, exportable.`,
        techStack: pick(STACKS),
      });
    }
    process.stderr.write(`search_concept: seeding ${listings.length} listings\n`);
    for (let off = 0; off < listings.length; off += 1000)
      await insertListings(
        runtime,
        listings.slice(off, off + 1000).map((l) => ({ ...l, sellerId: seller.id, price: 1 })),
      );
    await sql`vacuum analyze items`;

    // rows read by the title check, in the form before (the whole document's index, weight A) and now
    const checks: Record<string, unknown> = {};
    for (const q of QUERIES) {
      const words = conceptEntryWords(taskText(q.q)).join(' ');
      const read = async (form: 'document' | 'title') => {
        const tq = sql`(select string_agg(quote_literal(t.lexeme) || ${form === 'document' ? ':A' : ''}, ' | ')::tsquery
          from unnest(tsvector_to_array(to_tsvector('english', ${words}))) t(lexeme)
          join search_terms s on s.lexeme = t.lexeme where s.df > 0 and s.df <= 500)`;
        const match =
          form === 'document'
            ? sql`i.search_document @@ ${tq}`
            : sql`to_tsvector('english', i.title) @@ ${tq}`;
        return sql.begin(async (tx) => {
          await tx`select set_config('enable_seqscan', 'off', true)`;
          const [plan] = await tx<Array<{ 'QUERY PLAN': unknown }>>`
            explain (analyze, format json)
            select i.id from items i where i.status = 'active' and ${match} limit 100`;
          return rowsRead(plan!['QUERY PLAN']);
        });
      };
      checks[q.q] = { before: await read('document'), now: await read('title') };
    }

    // the whole search, this build against the base build, alternating
    const base = env.BENCH_AB_BASE
      ? ((await import(path.resolve(env.BENCH_AB_BASE, 'dist/src/domain/search/search.js'))) as {
          searchItems: Search;
        })
      : undefined;
    const variants: Array<[string, Search]> = [['this', searchItems]];
    if (base) variants.unshift(['base', base.searchItems]);
    const opts = { efSearch: 100, ratingThreshold: 5 };
    const times: Record<string, number[]> = {};
    const answers: Record<string, string[]> = {};
    for (const [, s] of variants) for (const q of QUERIES) await s(sql, embedder, q, opts); // warm-up
    for (let round = 0; round < rounds; round++)
      for (const q of QUERIES)
        for (let k = 0; k < variants.length; k++) {
          const [name, s] = variants[(k + round) % variants.length]!;
          const t0 = performance.now();
          const res = await s(sql, embedder, q, opts);
          (times[name] ??= []).push(performance.now() - t0);
          answers[`${name} ${q.q}`] = res.map((x) => `${x.id} ${x.similarity}`);
        }
    const p50 = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const same = base
      ? QUERIES.every((q) => answers[`base ${q.q}`]!.join() === answers[`this ${q.q}`]!.join())
      : undefined;
    const report = {
      listings: listings.length,
      entries: entries.length,
      per_word: PER_WORD,
      titles_per_word: TITLES_PER_WORD,
      rows_read: checks,
      p50_ms: p50,
      ...(base ? { p50_ratio_this_to_base: +(p50.this! / p50.base!).toFixed(2) } : {}),
      same_answers: same,
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  } finally {
    await runtime.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor(s.length / 2)]!.toFixed(2);
};

/** Rows an index scan handed the heap, and those the condition then dropped, over a JSON plan. */
function rowsRead(plan: unknown): { index_rows: number; dropped: number } {
  let index_rows = 0;
  let dropped = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Node Type'] === 'Bitmap Index Scan') index_rows += Number(node['Actual Rows'] ?? 0);
    dropped += Number(node['Rows Removed by Index Recheck'] ?? 0);
    for (const c of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(c);
  };
  for (const p of plan as Array<{ Plan: Record<string, unknown> }>) walk(p.Plan);
  return { index_rows, dropped };
}
