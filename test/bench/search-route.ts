import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/http/app.js';
import type { SearchQuery } from '../../src/wire/items.js';
import { searchItems } from '../../src/domain/search/search.js';
import { cpuMs, Driver, median, type Round } from './load.js';
import { loadCatalogue, queries, rng } from './search.js';
import { idleBuiltDemo } from './startup.js';
import { servedNode } from '../helpers/served-node.js';

/**
 * `npm run bench -- search_route memory`:
 *
 * search_route: `GET /api/v1/search` through Fastify (load from a child process, 20 connections)
 * against the same search called in process (`searchItems`: the embedding, the hybrid SQL and the
 * final ranking, with no HTTP), 20 at a time, interleaved rounds; plus the embedder alone per
 * query. Goal: the route >= 0.7 of its direct call.
 *
 * memory: resident memory of a fresh process (./memory-child.ts) per catalogue size, and of an
 * idle demo server (36 listings). Goals: 100,000 listings under 1 GB, idle demo under 250 MB.
 */
const CONNECTIONS = 20;
const ROUNDS = Number(process.env.BENCH_ROUTE_ROUNDS ?? 3);
const PER_ROUND = Number(process.env.BENCH_ROUTE_QUERIES ?? 240);

const toUrl = (base: string, q: SearchQuery) => {
  const p = new URLSearchParams({ q: q.q });
  if (q.tech_stack) p.set('tech_stack', q.tech_stack);
  if (q.min_price !== undefined) p.set('min_price', String(q.min_price));
  if (q.max_price !== undefined) p.set('max_price', String(q.max_price));
  return `${base}/api/v1/search?${p}`;
};

export async function benchSearchRoute(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const n = Number(env.BENCH_ROUTE_LISTINGS ?? 1000);
  process.stderr.write(`search route bench: loading ${n} listings\n`);
  const c = await loadCatalogue(n, 100);
  const { deps } = c.runtime;
  const app = await buildApp(deps.config, deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const driver = await Driver.start(CONNECTIONS);
  const opts = {
    efSearch: deps.config.SEARCH_EF_SEARCH,
    ratingThreshold: deps.config.RATING_VISIBILITY_THRESHOLD,
  };
  try {
    const qs = queries(rng(7));
    const batch = Array.from({ length: PER_ROUND }, (_, i) => qs[i % qs.length]!);
    const urls = batch.map((q) => toUrl(base, q));

    const direct = async (): Promise<Round> => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < batch.length)
            await searchItems(deps.sql, deps.embedder, batch[next++]!, opts);
        }),
      );
      return {
        perSecond: batch.length / ((performance.now() - started) / 1000),
        cpuMs: cpuMs(process.cpuUsage(cpu)) / batch.length,
        failures: 0,
      };
    };
    const embedOnly = async () => {
      const cpu = process.cpuUsage();
      for (const q of batch) await deps.embedder.embed([q.q]);
      return cpuMs(process.cpuUsage(cpu)) / batch.length;
    };

    await driver.gets(urls.slice(0, 60)); // warm-up: JIT, plans, caches
    await direct();
    const route: Round[] = [];
    const domain: Round[] = [];
    const embed: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      route.push(await driver.gets(urls));
      domain.push(await direct());
      embed.push(await embedOnly());
    }
    const ratio = median(route.map((x, i) => x.perSecond / domain[i]!.perSecond));
    const result = {
      listings: n,
      connections: CONNECTIONS,
      route_per_second: Math.round(median(route.map((x) => x.perSecond))),
      direct_per_second: Math.round(median(domain.map((x) => x.perSecond))),
      ratio_route_to_direct: Number(ratio.toFixed(2)),
      goal: '>= 0.7',
      cpu_ms_per_query: {
        route: Number(median(route.map((x) => x.cpuMs)).toFixed(3)),
        direct: Number(median(domain.map((x) => x.cpuMs)).toFixed(3)),
        embedder: Number(median(embed).toFixed(3)),
      },
      failures: route.reduce((s, x) => s + x.failures, 0),
    };
    console.log(
      [
        `search route vs its direct call (${n} listings, ${CONNECTIONS} at a time, ${ROUNDS} interleaved rounds of ${PER_ROUND}):`,
        `  route  ${result.route_per_second}/s  (rounds ${route.map((x) => Math.round(x.perSecond)).join(', ')}; CPU ms ${result.cpu_ms_per_query.route})`,
        `  direct ${result.direct_per_second}/s  (rounds ${domain.map((x) => Math.round(x.perSecond)).join(', ')}; CPU ms ${result.cpu_ms_per_query.direct})`,
        `  ratio  ${result.ratio_route_to_direct}  (goal >= 0.7); embedder ${result.cpu_ms_per_query.embedder} ms CPU per query; failures ${result.failures}`,
      ].join('\n'),
    );
    return result;
  } finally {
    driver.stop();
    await app.close();
    await c.runtime.close();
  }
}

interface MemoryChild {
  rssMb: number;
  peakMb: number;
  heapMb: number;
  dbWasmMb: number;
  listings: number;
  /** Catalogues only: resident after every 10,000 listings seeded. */
  seeded?: Array<{ listings: number; rssMb: number }>;
  afterIndex?: { rssMb: number; peakMb: number; dbWasmMb: number };
  afterSeedSeconds?: number;
  indexSeconds?: number;
  queries?: number;
  querySeconds?: number;
}

/** Runs ./memory-child.ts for one catalogue size (or the idle demo) and reads its report. */
function measureChild(arg: string): Promise<MemoryChild> {
  const file = fileURLToPath(new URL('./memory-child.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    // with `npm start`'s node flags and environment (the memory settings of the served process)
    const served = servedNode();
    const child = spawn(process.execPath, [...served.execArgv, '--import', 'tsx', file, arg], {
      env: { ...process.env, ...served.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`memory child ${arg} exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as MemoryChild);
    });
  });
}

export async function benchMemory(
  env: Record<string, string | undefined> = {},
): Promise<Record<string, unknown>> {
  const sizes = (env.BENCH_MEMORY_SIZES ?? '1000,10000').split(',').map(Number);
  const loadBefore = loadavg()[0]!;
  const idle = await measureChild('demo');
  // the same demo as `npm run demo` runs it: the built entry, no tsx in the process
  const built = existsSync(fileURLToPath(new URL('../../dist/src/main.js', import.meta.url)))
    ? await idleBuiltDemo()
    : undefined;
  const bySize: MemoryChild[] = [];
  for (const n of sizes) {
    process.stderr.write(`memory bench: ${n} listings\n`);
    bySize.push(await measureChild(String(n)));
  }
  const first = bySize[0]!;
  const last = bySize[bySize.length - 1]!;
  // across sizes: resident after the searches; within the largest: resident while seeding
  const per10k =
    bySize.length > 1
      ? ((last.rssMb - first.rssMb) / (last.listings - first.listings)) * 10_000
      : 0;
  const samples = last.seeded ?? [];
  const s0 = samples[0];
  const s1 = samples[samples.length - 1];
  const per10kSeeding =
    s0 && s1 && s1.listings > s0.listings
      ? ((s1.rssMb - s0.rssMb) / (s1.listings - s0.listings)) * 10_000
      : undefined;
  const result = {
    loadavg: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0]!.toFixed(2)) },
    idle_demo_rss_mb: idle.rssMb,
    idle_demo_peak_mb: idle.peakMb,
    idle_demo_built_rss_mb: built?.rssMb ?? 'no build',
    idle_demo_built_peak_mb: built?.peakMb ?? 'no build',
    idle_goal_mb: 250,
    sizes: bySize,
    rss_mb_per_10k_listings: Number(per10k.toFixed(1)),
    rss_mb_per_10k_listings_while_seeding:
      per10kSeeding === undefined ? 'one sample' : Number(per10kSeeding.toFixed(1)),
    largest_peak_mb: last.peakMb,
    projected_100k_rss_mb: Math.round(first.rssMb + (per10k * (100_000 - first.listings)) / 10_000),
    goal_100k_mb: 1000,
  };
  console.log(
    [
      `memory (resident, fresh process each, npm start's memory settings; load ${result.loadavg.before} -> ${result.loadavg.after}):`,
      `  idle demo (36 listings, server up)  ${idle.rssMb} MB under tsx (peak ${idle.peakMb} MB); built entry: ${built ? `${built.rssMb} MB (peak ${built.peakMb} MB)` : 'no build'} (goal < 250)`,
      ...bySize.map((s) =>
        [
          `  ${s.listings} listings: after ${s.queries ?? '?'} searches ${s.rssMb} MB (JS heap ${s.heapMb} MB, database WASM memory ${s.dbWasmMb} MB); peak ${s.peakMb} MB`,
          s.afterIndex &&
            `    seeded in ${s.afterSeedSeconds} s, indexes built in ${s.indexSeconds} s: ${s.afterIndex.rssMb} MB (peak ${s.afterIndex.peakMb} MB); searches took ${s.querySeconds} s`,
          s.seeded &&
            s.seeded.length > 1 &&
            `    while seeding: ${s.seeded.map((x) => `${x.listings / 1000}k ${x.rssMb}`).join(', ')} MB`,
        ]
          .filter(Boolean)
          .join('\n'),
      ),
      `  per 10,000 listings ${result.rss_mb_per_10k_listings} MB across sizes${per10kSeeding === undefined ? '' : `, ${per10kSeeding.toFixed(1)} MB while seeding the largest`}; largest peak ${last.peakMb} MB; projected at 100,000: ${result.projected_100k_rss_mb} MB (goal < 1000)`,
    ].join('\n'),
  );
  return result;
}
