import { randomBytes } from 'node:crypto';
import { existsSync, openAsBlob } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { provisionAgent } from '../../src/domain/accounts/accounts.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import type { SearchQuery } from '../../src/wire/items.js';
import { searchItems } from '../../src/domain/search/search.js';
import {
  ensureVectorIndex,
  indexedStackTerms,
  indexName,
  toVectorLiteral,
  vectorType,
} from '../../src/domain/search/vectors.js';
import { listingText } from '../../src/embeddings/embedder.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';

/**
 * Search benchmark (issue 2): seeds 1,000 and 100,000 synthetic active listings into the embedded
 * Postgres, measures p50 / p95 latency of the full hybrid search (embedding + SQL) for plain and
 * filtered queries, and recall@20 of the indexed search against the same search run as an exact
 * scan. Sizes are overridable: BENCH_SEARCH_SIZES=1000,20000.
 *
 * BENCH_SEARCH_REUSE_DIR=dir keeps each seeded and indexed catalogue there (a dump of the embedded
 * database, about 3 GB at 100k) and starts later runs from it, in memory as before, instead of
 * seeding again (100k takes minutes). The dump is keyed by size and embedder option only: empty the
 * directory when the seeding or the index build changes. Migrations added since still apply.
 */

// deterministic PRNG so both sizes draw from the same distribution
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;

const ADJ = [
  'fast',
  'tiny',
  'secure',
  'async',
  'typed',
  'streaming',
  'distributed',
  'minimal',
  'robust',
  'modular',
  'offline',
  'realtime',
  'scalable',
  'lightweight',
  'portable',
];
const STACKS = [
  'TypeScript, Node.js',
  'Python, FastAPI',
  'Go',
  'Rust',
  'Java, Spring',
  'Python, Django',
  'TypeScript, React',
  'C++',
  'Ruby, Rails',
  'Kotlin',
  'Elixir, Phoenix',
  'PHP, Laravel',
  'Swift',
  'C#, .NET',
  'Scala',
];
const EXTRA = [
  'with tests',
  'with docker setup',
  'and a CLI',
  'with metrics',
  'with retries',
  'and caching',
  'with docs',
  'and benchmarks',
  'for teams',
  'with plugins',
];

// Words every listing draws a few extra features from, so that listings spread out instead of
// forming tight clusters of near-copies (which the scan's duplicate check would refuse anyway).
const VOCAB = Array.from(
  new Set(
    DEMO_LISTINGS.flatMap((l) =>
      `${l.title} ${l.description}`.toLowerCase().split(/[^a-z0-9]+/),
    ).filter((w) => w.length > 3),
  ),
);

function synthetic(r: () => number, i: number) {
  const base = pick(r, DEMO_LISTINGS);
  const other = pick(r, DEMO_LISTINGS);
  const words = base.description.split(' ');
  // shuffle a few words, borrow a clause from another listing and add random features
  for (let k = 0; k < 4; k++) {
    const a = Math.floor(r() * words.length);
    const b = Math.floor(r() * words.length);
    [words[a], words[b]] = [words[b]!, words[a]!];
  }
  const borrowed = other.description.split(/[.,]/)[0]!.trim();
  const features = Array.from({ length: 3 + Math.floor(r() * 6) }, () => pick(r, VOCAB)).join(' ');
  const titleWords = base.title.split(' ');
  const title = titleWords.filter(() => r() > 0.25).join(' ') || base.title;
  return {
    title: `${pick(r, ADJ)} ${title.toLowerCase()} ${pick(r, VOCAB)} ${i % 97}`,
    description: `${words.join(' ')} Also: ${borrowed.toLowerCase()}; ${features} ${pick(r, EXTRA)}.`,
    techStack: pick(r, STACKS),
    price: Math.round((0.1 + r() * 40) * 100) / 100,
  };
}

export function queries(r: () => number): SearchQuery[] {
  const out: SearchQuery[] = [];
  for (let i = 0; i < 60; i++) {
    const l = pick(r, DEMO_LISTINGS);
    const kind = i % 4;
    if (kind === 0) out.push({ q: l.title });
    else if (kind === 1) out.push({ q: l.description.split(' ').slice(0, 8).join(' ') });
    else if (kind === 2) out.push({ q: l.title, tech_stack: pick(r, STACKS).split(',')[0]! });
    else out.push({ q: `${pick(r, ADJ)} ${l.title}`, min_price: 1, max_price: 10 });
  }
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export interface SearchBenchSize {
  listings: number;
  seed_seconds: number;
  index_build_seconds: number;
  p50_ms: number;
  p95_ms: number;
  p50_filtered_ms: number;
  /** Process CPU per query (the embedded database runs on this thread): immune to waiting for a core. */
  p50_cpu_ms: number;
  p50_filtered_cpu_ms: number;
  recall_at_20: number;
  recall_at_20_filtered: number;
  filtered_queries_with_results: string;
  stack_indexes: number;
}

interface Catalogue {
  n: number;
  runtime: Awaited<ReturnType<typeof createRuntime>>;
  seedSeconds: number;
  indexSeconds: number;
}

/**
 * Active listings inserted as one statement, each embedded by the runtime's embedder and given a
 * random archive digest: how the benches seed a catalogue without the upload path.
 */
export async function insertListings(
  runtime: Awaited<ReturnType<typeof createRuntime>>,
  listings: ReadonlyArray<{
    sellerId: string;
    title: string;
    description: string;
    techStack: string;
    price: number;
  }>,
): Promise<void> {
  const { sql, embedder } = runtime.deps;
  const vt = vectorType(sql, embedder.dimensions);
  const vectors = await embedder.embed(listings.map(listingText));
  const rows = listings.map((l, k) => [
    l.sellerId,
    l.title,
    l.description,
    l.techStack,
    Math.round(l.price * 1e6),
    randomBytes(32).toString('hex'),
    toVectorLiteral(vectors[k]!),
  ]);
  await sql`
    insert into items (seller_id, status, status_reason, title, description, tech_stack, price_micro,
                       archive_sha256, archive_key, archive_size, compression, file_name,
                       embedding, embedding_model, embedding_dims, activated_at)
    select v.seller::uuid, 'active', 'approved', v.title, v.descr, v.stack, v.price::bigint, v.sha,
           'bench/' || v.sha, 1000, 'zip', 'bench.zip', v.emb::${vt}, ${embedder.model}, ${embedder.dimensions}, now()
    from (values ${sql(rows)}) as v(seller, title, descr, stack, price, sha, emb)`;
}
export async function loadCatalogue(
  n: number,
  efSearch: number,
  /** The memory bench: a database on disk, the index built with the server's own settings. */
  opts: {
    env?: Record<string, string>;
    maintenanceWorkMem?: string;
    /** Told after each inserted batch (the memory bench samples resident memory there). */
    onSeeded?: (seeded: number) => void;
    /** Keep the seeded catalogue in this directory and start from it when there (BENCH_SEARCH_REUSE_DIR). */
    reuseDir?: string;
  } = {},
): Promise<Catalogue> {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    // the built-in embedder's option as the bench's environment names it (words or sentence)
    EMBEDDINGS_BUILTIN: process.env.EMBEDDINGS_BUILTIN,
    EMBEDDINGS_SENTENCE_SHARE: process.env.EMBEDDINGS_SENTENCE_SHARE,
    SEARCH_EF_SEARCH: String(efSearch),
    ...opts.env,
  });
  const kept = opts.reuseDir
    ? path.join(
        path.resolve(opts.reuseDir),
        `search-${n}-${config.EMBEDDINGS_BUILTIN ?? 'default'}-${config.EMBEDDINGS_SENTENCE_SHARE ?? 'default'}.tar`,
      )
    : undefined;
  // (a Blob on the file: readFile stops at 2 GiB, the 100k dump is about 3 GB)
  // (openAsBlob throws at once, not in its promise, when the file is missing: the first run)
  const template = kept && existsSync(kept) ? await openAsBlob(kept) : undefined;
  const runtime = await createRuntime(config, { logger: createLogger(config, 2), template });
  if (template) {
    process.stderr.write(`  ${n} listings from ${kept}\n`);
    return { n, runtime, seedSeconds: 0, indexSeconds: 0 };
  }
  const { sql, embedder } = runtime.deps;
  const r = rng(42);
  const sellers: Array<{ id: string }> = [];
  for (let s = 0; s < 20; s++)
    sellers.push(
      (await provisionAgent(sql, `0x${randomBytes(20).toString('hex')}`, { payoutSalt: 'bench' }))
        .agent,
    );

  // bulk load without the HNSW index, then build it once (how an operator would re-index)
  const t0 = performance.now();
  await sql.unsafe(`drop index if exists ${indexName(embedder.dimensions)}`);
  const BATCH = 1000;
  for (let off = 0; off < n; off += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, n - off) }, (_, k) => synthetic(r, off + k));
    await insertListings(
      runtime,
      batch.map((l, k) => ({ ...l, sellerId: sellers[(off + k) % sellers.length]!.id })),
    );
    if (n >= 10_000 && (off / BATCH) % 20 === 0)
      process.stderr.write(`  seeded ${off + batch.length}/${n}\n`);
    opts.onSeeded?.(off + batch.length);
  }
  const seedSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await sql`select set_config('maintenance_work_mem', ${opts.maintenanceWorkMem ?? '1GB'}, false)`;
  await ensureVectorIndex(sql, embedder.dimensions);
  await sql`vacuum analyze items`; // flushes the GIN pending list, as autovacuum would
  const indexSeconds = (performance.now() - t1) / 1000;
  if (kept && runtime.db.dump) {
    await mkdir(path.dirname(kept), { recursive: true });
    await writeFile(`${kept}.part`, Buffer.from(await (await runtime.db.dump()).arrayBuffer()));
    await rename(`${kept}.part`, kept);
  }
  return { n, runtime, seedSeconds, indexSeconds };
}

const isFiltered = (q: SearchQuery) => q.tech_stack !== undefined || q.min_price !== undefined;

export async function benchSearch(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const sizes = (env.BENCH_SEARCH_SIZES ?? '1000,100000').split(',').map(Number);
  const ef = Number(env.BENCH_EF_SEARCH ?? 100);
  const rounds = Number(env.BENCH_SEARCH_ROUNDS ?? 5);
  const catalogues: Catalogue[] = [];
  try {
    for (const n of sizes) {
      process.stderr.write(`search bench: loading ${n} listings\n`);
      catalogues.push(await loadCatalogue(n, ef, { reuseDir: env.BENCH_SEARCH_REUSE_DIR }));
    }
    const qs = queries(rng(7));
    const opts = { efSearch: ef, ratingThreshold: 5 };
    const search = (c: Catalogue, q: SearchQuery, exact = false) =>
      searchItems(c.runtime.deps.sql, c.runtime.deps.embedder, q, { ...opts, exact });
    for (const c of catalogues) for (const q of qs) await search(c, q); // warm-up: caches, JIT, plans

    // Timed passes interleave the sizes query by query, so machine load lands on every size alike.
    const times = catalogues.map(() => ({ plain: [] as number[], filtered: [] as number[] }));
    const cpu = catalogues.map(() => ({ plain: [] as number[], filtered: [] as number[] }));
    const got = catalogues.map(() => new Map<SearchQuery, string[]>());
    for (let round = 0; round < rounds; round++) {
      for (const q of qs) {
        for (const [i, c] of catalogues.entries()) {
          const c0 = process.cpuUsage();
          const s = performance.now();
          const res = await search(c, q);
          times[i]![isFiltered(q) ? 'filtered' : 'plain'].push(performance.now() - s);
          const used = process.cpuUsage(c0);
          cpu[i]![isFiltered(q) ? 'filtered' : 'plain'].push((used.user + used.system) / 1000);
          got[i]!.set(
            q,
            res.map((x) => x.id),
          );
        }
      }
    }
    // Recall afterwards: exact scans would evict the index from the buffer cache.
    const results: SearchBenchSize[] = [];
    for (const [i, c] of catalogues.entries()) {
      const recall = { plain: [] as number[], filtered: [] as number[] };
      let full = 0;
      for (const q of qs) {
        const exact = await search(c, q, true);
        const ids = new Set(exact.map((x) => x.id));
        const mine = got[i]!.get(q)!;
        recall[isFiltered(q) ? 'filtered' : 'plain'].push(
          exact.length ? mine.filter((id) => ids.has(id)).length / exact.length : 1,
        );
        if (isFiltered(q) && mine.length > 0 && mine.length >= Math.min(20, exact.length)) full++;
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      results.push({
        listings: c.n,
        seed_seconds: +c.seedSeconds.toFixed(1),
        index_build_seconds: +c.indexSeconds.toFixed(1),
        p50_ms: +pct(times[i]!.plain, 50).toFixed(2),
        p95_ms: +pct(times[i]!.plain, 95).toFixed(2),
        p50_filtered_ms: +pct(times[i]!.filtered, 50).toFixed(2),
        p50_cpu_ms: +pct(cpu[i]!.plain, 50).toFixed(2),
        p50_filtered_cpu_ms: +pct(cpu[i]!.filtered, 50).toFixed(2),
        recall_at_20: +mean(recall.plain).toFixed(3),
        recall_at_20_filtered: +mean(recall.filtered).toFixed(3),
        filtered_queries_with_results: `${full}/${recall.filtered.length}`,
        stack_indexes: (
          await indexedStackTerms(c.runtime.deps.sql, c.runtime.deps.embedder.dimensions)
        ).size,
      });
    }
    // The embedder's share of a query: embedding the query text alone, same queries.
    const embedder = catalogues[0]!.runtime.deps.embedder;
    const e0 = performance.now();
    const ec0 = process.cpuUsage();
    for (let k = 0; k < 5; k++) for (const q of qs) await embedder.embed([q.q]);
    const ecpu = process.cpuUsage(ec0);
    const embedMs = (performance.now() - e0) / (5 * qs.length);
    const embedCpuMs = (ecpu.user + ecpu.system) / 1000 / (5 * qs.length);
    const small = results[0]!;
    const large = results[results.length - 1]!;
    const report = {
      ef_search: ef,
      rounds,
      sizes: results,
      p50_ratio: +(large.p50_ms / small.p50_ms).toFixed(2),
      p95_ratio: +(large.p95_ms / small.p95_ms).toFixed(2),
      p50_filtered_ratio: +(large.p50_filtered_ms / small.p50_filtered_ms).toFixed(2),
      p50_cpu_ratio: +(large.p50_cpu_ms / small.p50_cpu_ms).toFixed(2),
      p50_filtered_cpu_ratio: +(large.p50_filtered_cpu_ms / small.p50_filtered_cpu_ms).toFixed(2),
      embedder_ms_per_query: +embedMs.toFixed(3),
      embedder_cpu_ms_per_query: +embedCpuMs.toFixed(3),
      goal: 'p50 ratio <= 2 (plain and filtered), recall@20 >= 0.95',
    };
    console.table(results);
    console.log(
      `search: p50(${large.listings}) / p50(${small.listings}) = ${report.p50_ratio}; p95 ratio ${report.p95_ratio}; filtered p50 ratio ${report.p50_filtered_ratio} (goal <= 2 each); CPU ratios ${report.p50_cpu_ratio} plain, ${report.p50_filtered_cpu_ratio} filtered; embedder ${report.embedder_ms_per_query} ms per query (${report.embedder_cpu_ms_per_query} ms CPU)`,
    );
    return report;
  } finally {
    for (const c of catalogues) await c.runtime.close();
  }
}
