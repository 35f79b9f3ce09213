import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { searchItems } from '../../src/domain/search/search.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { loadCatalogue, queries, rng } from './search.js';

/**
 * One memory measurement in a fresh process (./search-route.ts runs it): `demo` starts the demo
 * server (36 listings, HTTP listening) and lets it idle; a number loads that many synthetic
 * listings (resident memory sampled after every 10,000), builds the search indexes and runs the
 * search bench's queries within BENCH_MEMORY_QUERY_SECONDS. The database is on disk under a fresh
 * temporary DATA_DIR (a first start, as on a first `npm run demo`). Prints
 * `{ rssMb, peakMb, heapMb, dbWasmMb, listings, ... }`: resident now and at its peak (VmHWM), the
 * JS heap, and the size of the embedded database's WASM memory (it grows and never shrinks; only
 * the pages it touched are resident).
 */
const arg = process.argv[2] ?? 'demo';
const mb = (x: number) => Math.round(x / 2 ** 20);
/** PGlite's WASM memory is the external memory outside ArrayBuffers (nothing else is that big). */
const dbWasmMb = (m: NodeJS.MemoryUsage) => mb(m.external - m.arrayBuffers);
/** This process's peak resident memory so far (Linux VmHWM), MB. */
const peakMb = () =>
  Math.round(
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024,
  );

/** Resident now and at its peak, the JS heap and the database's WASM memory, in MB. */
function memoryNow() {
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), peakMb: peakMb(), heapMb: mb(m.heapUsed), dbWasmMb: dbWasmMb(m) };
}

// On disk, as `npm start` and `npm run demo` keep it (an in-memory database holds its files in RSS).
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-mem-'));

if (arg === 'demo') {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    // the built-in embedder's option as the bench's environment names it (words or sentence)
    EMBEDDINGS_BUILTIN: process.env.EMBEDDINGS_BUILTIN,
    EMBEDDINGS_SENTENCE_SHARE: process.env.EMBEDDINGS_SENTENCE_SHARE,
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  await loadDemoData(runtime.deps);
  const app = await buildApp(config, runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await sleep(3000);
  global.gc?.();
  console.log(
    JSON.stringify({
      ...memoryNow(),
      listings: 36,
    }),
  );
  await app.close();
  await runtime.close();
} else {
  const n = Number(arg);
  const rssMb = () => mb(process.memoryUsage.rss());
  // resident after every 10,000 listings seeded (or at the end of a smaller catalogue)
  const seeded: Array<{ listings: number; rssMb: number }> = [];
  const started = performance.now();
  const c = await loadCatalogue(n, 100, {
    env: { EMBEDDED_DB_IN_MEMORY: 'false', DATA_DIR: dataDir },
    maintenanceWorkMem: '64MB', // Postgres's default, what the server's own index builds use
    onSeeded: (k) => {
      if (k % 10_000 !== 0 && k !== n) return;
      seeded.push({ listings: k, rssMb: rssMb() });
      process.stderr.write(`  ${k} listings seeded: ${rssMb()} MB resident, peak ${peakMb()} MB\n`);
    },
  });
  process.stderr.write(`  indexes built: ${rssMb()} MB resident, peak ${peakMb()} MB\n`);
  const afterIndex = {
    rssMb: rssMb(),
    peakMb: peakMb(),
    dbWasmMb: dbWasmMb(process.memoryUsage()),
  };
  const { deps } = c.runtime;
  // Every query of the search bench, within a time budget: on a loaded machine a cold on-disk
  // catalogue of 100,000 answers slowly, and the figure wanted is memory, not latency.
  const budgetMs = Number(process.env.BENCH_MEMORY_QUERY_SECONDS ?? 300) * 1000;
  const qStart = performance.now();
  let ran = 0;
  for (const q of queries(rng(7))) {
    if (performance.now() - qStart > budgetMs) break;
    await searchItems(deps.sql, deps.embedder, q, {
      efSearch: deps.config.SEARCH_EF_SEARCH,
      ratingThreshold: deps.config.RATING_VISIBILITY_THRESHOLD,
    });
    ran++;
    if (n >= 10_000)
      process.stderr.write(
        `  query ${ran}: ${Math.round(performance.now() - qStart)} ms so far, ${rssMb()} MB\n`,
      );
  }
  console.log(
    JSON.stringify({
      ...memoryNow(),
      listings: n,
      seeded,
      afterSeedSeconds: Math.round(c.seedSeconds),
      indexSeconds: Math.round(c.indexSeconds),
      afterIndex,
      queries: ran,
      querySeconds: Math.round((performance.now() - qStart) / 1000),
      totalSeconds: Math.round((performance.now() - started) / 1000),
    }),
  );
  await c.runtime.close();
}
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
