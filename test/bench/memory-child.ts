import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
 * server (in-memory database, 36 listings, HTTP listening) and lets it idle; a number loads that
 * many synthetic listings and runs the search bench's queries. The database is on disk under a
 * fresh temporary DATA_DIR (a first start, as on a first `npm run demo`). Prints
 * `{ rssMb, peakMb, heapMb, listings }`: resident now and at its peak (VmHWM).
 */
const arg = process.argv[2] ?? 'demo';
const mb = (x: number) => Math.round(x / 2 ** 20);
/** This process's peak resident memory so far (Linux VmHWM), MB. */
const peakMb = () =>
  Math.round(
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024,
  );

// On disk, as `npm start` and `npm run demo` keep it (an in-memory database holds its files in RSS).
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-mem-'));

if (arg === 'demo') {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  await loadDemoData(runtime.deps);
  const app = await buildApp(config, runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await sleep(3000);
  global.gc?.();
  const m = process.memoryUsage();
  console.log(
    JSON.stringify({ rssMb: mb(m.rss), peakMb: peakMb(), heapMb: mb(m.heapUsed), listings: 36 }),
  );
  await app.close();
  await runtime.close();
} else {
  const n = Number(arg);
  const c = await loadCatalogue(n, 100, {
    env: { EMBEDDED_DB_IN_MEMORY: 'false', DATA_DIR: dataDir },
    maintenanceWorkMem: '64MB', // Postgres's default, what the server's own index builds use
  });
  const { deps } = c.runtime;
  for (const q of queries(rng(7)))
    await searchItems(deps.sql, deps.embedder, q, {
      efSearch: deps.config.SEARCH_EF_SEARCH,
      ratingThreshold: deps.config.RATING_VISIBILITY_THRESHOLD,
    });
  const m = process.memoryUsage();
  console.log(
    JSON.stringify({ rssMb: mb(m.rss), peakMb: peakMb(), heapMb: mb(m.heapUsed), listings: n }),
  );
  await c.runtime.close();
}
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
