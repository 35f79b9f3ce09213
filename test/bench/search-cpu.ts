import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ensureNpmBuild, ROOT } from '../helpers/build.js';
import { Driver, median } from './load.js';
import { benchEnvs, cluster, searchUrls, startSystem, type System } from './scale.js';

/**
 * `npm run bench -- search_cpu`: the whole system's CPU per search (service process from /proc,
 * plus on Postgres the postmaster with every backend), on the embedded database and on Postgres
 * (one replica, scripts/postgres.sh), for this build and, when BENCH_AB_BASE names another package
 * root (its dist/, migrations/ and package.json, e.g. a copy of an earlier build), for that one
 * too, measured in the same run: every system is started at once (each on its own database or
 * data directory, seeded with the demo catalogue by its own build) and loaded in turn, in
 * BENCH_SEARCH_CPU_ROUNDS (4) rounds of BENCH_SEARCH_CPU_SEARCHES (2000) searches over
 * BENCH_SEARCH_CPU_CONNECTIONS (200) keep-alive connections, the order rotating each round; the
 * medians are reported. This is the work the scale bench's replica ratio divides (./scale.ts).
 * BENCH_SEARCH_CPU_PROF=dir writes the serving processes' CPU profiles (--cpu-prof) there.
 */
const CONNECTIONS = Number(process.env.BENCH_SEARCH_CPU_CONNECTIONS ?? 200);
const SEARCH_N = Number(process.env.BENCH_SEARCH_CPU_SEARCHES ?? 2000);
const ROUNDS = Number(process.env.BENCH_SEARCH_CPU_ROUNDS ?? 4);

export async function benchSearchCpu(): Promise<Record<string, unknown>> {
  await ensureNpmBuild();
  const trees: Array<[string, string]> = [['this', ROOT]];
  if (process.env.BENCH_AB_BASE) trees.unshift(['base', path.resolve(process.env.BENCH_AB_BASE)]);
  const prof = process.env.BENCH_SEARCH_CPU_PROF;
  const nodeArgs = prof ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(prof)}`] : [];
  const loadBefore = loadavg()[0]!;
  const pg = await cluster();
  const driver = await Driver.start(CONNECTIONS);
  const dirs: string[] = [];
  const tmp = (p: string) => {
    const d = mkdtempSync(path.join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  const logDir = tmp('bench-search-cpu-logs-');
  const systems: System[] = [];
  try {
    for (const [tree, root] of trees) {
      const { onPg, embedded, postmaster } = await benchEnvs(pg.adminUrl, tmp);
      for (const [db, env, pm] of [
        ['embedded', embedded, undefined],
        ['postgres', onPg, postmaster],
      ] as const) {
        const name = `${db} ${tree}`;
        const seedEnv = db === 'postgres' ? { ...env, IN_PROCESS_WORKER: 'true' } : env;
        const seed = await startSystem(
          `seed ${name}`,
          seedEnv,
          1,
          false,
          logDir,
          undefined,
          'demo',
          root,
        );
        await seed.stop();
        systems.push(await startSystem(name, env, 1, false, logDir, pm, 'serve', root, nodeArgs));
      }
    }
    // a postgres system's cpu() counts the whole cluster: only one system is loaded at a time
    for (const s of systems)
      await driver.job({ urls: searchUrls(s.bases, 400), concurrency: CONNECTIONS });
    const cpu: Record<string, number[]> = {};
    const rate: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < systems.length; k++) {
        const s = systems[(k + r) % systems.length]!;
        const before = s.cpu();
        const res = await driver.job({
          urls: searchUrls(s.bases, SEARCH_N),
          concurrency: CONNECTIONS,
        });
        const used = s.cpu() - before;
        if (res.failures) throw new Error(`${s.name}: ${res.failures} failed searches`);
        (cpu[s.name] ??= []).push(used / SEARCH_N);
        (rate[s.name] ??= []).push(SEARCH_N / res.seconds);
      }
    }
    const rows = Object.fromEntries(
      systems.map((s) => [
        s.name,
        {
          cpu_ms_per_search: Number(median(cpu[s.name]!).toFixed(2)),
          rounds: cpu[s.name]!.map((x) => Number(x.toFixed(2))),
          per_second: Math.round(median(rate[s.name]!)),
        },
      ]),
    );
    console.log(
      `search CPU (${CONNECTIONS} connections, ${ROUNDS} x ${SEARCH_N} searches; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after):`,
    );
    for (const [name, row] of Object.entries(rows))
      console.log(
        `  ${name.padEnd(14)} ${row.cpu_ms_per_search} ms CPU/search (rounds ${row.rounds.join(', ')}), ${row.per_second}/s`,
      );
    return { connections: CONNECTIONS, searches: SEARCH_N, rounds: ROUNDS, systems: rows };
  } finally {
    await Promise.all(systems.map((s) => s.stop()));
    driver.stop();
    await pg.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
