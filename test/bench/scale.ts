import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { PaymentRequired } from '@x402/core/types';
import postgres from 'postgres';
import { ensureNpmBuild, ROOT } from '../helpers/build.js';
import { freePort } from '../helpers/ports.js';
import { servedNode } from '../helpers/served-node.js';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver, SEARCHES } from './load.js';

/**
 * `npm run bench -- scale`: the scaled-out shape against the embedded default, under the same load.
 * The built entry (`npm run build`, `npm start`'s node flags) serves:
 * - embedded: one process on its own data directory (PGlite inside it);
 * - postgres x1 and x2: 1 or 2 replicas with IN_PROCESS_WORKER=false, plus one `worker` process,
 *   on one Postgres 15 + pgvector (scripts/postgres.sh start, or the cluster PG_ADMIN_URL names);
 * all with the demo catalogue, on loopback. For each: the idle search latency (one at a time),
 * then BENCH_SCALE_SEARCHES searches and BENCH_SCALE_PURCHASES paid completions (official
 * EIP-3009 signatures made beforehand) over BENCH_SCALE_CONNECTIONS (200) keep-alive connections
 * from a load process (requests to the replicas in turn, as a load balancer would), each a closed
 * loop (a connection sends its next request when the last is answered: the saturated throughput):
 * throughput, p50/p99, and the whole system's CPU per request: the service processes and (on
 * Postgres) the postmaster with every backend, read from /proc (exited backends through the
 * postmaster's cutime/cstime). Then the open loop: BENCH_SCALE_OPEN_SECONDS (30) of searches over
 * the same connections at one offered rate for every system (BENCH_SCALE_OPEN_RATE per second,
 * default 70% of the first system's saturated search throughput: the embedded process's), each
 * sent when due and timed from then (./payments-driver.ts): the latency under a bounded load.
 * Goals: 2 replicas on Postgres >= 3x the embedded process's search throughput (closed loop);
 * search p99 <= 10x its idle p50 (open loop: a closed loop of 200 clients waits 200 / throughput
 * by Little's law, whatever the service).
 *
 * Every service process logs to a file in the bench's temporary directory; the error lines and
 * 5xx answers found there are printed after each system, and the logs are kept when there were
 * any. BENCH_SCALE_POOL sets the replicas' DATABASE_POOL_MAX (default: the service's own default);
 * BENCH_SCALE_SYSTEMS (comma-separated: embedded, postgres x1, postgres x2) runs some only.
 */
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 200);
const SEARCH_N = Number(process.env.BENCH_SCALE_SEARCHES ?? 4000);
const PURCHASE_N = Number(process.env.BENCH_SCALE_PURCHASES ?? 1200);
const IDLE_N = 100;
const OPEN_SECONDS = Number(process.env.BENCH_SCALE_OPEN_SECONDS ?? 30);
const OPEN_RATE = process.env.BENCH_SCALE_OPEN_RATE ? Number(process.env.BENCH_SCALE_OPEN_RATE) : 0;
const BODY = JSON.stringify({ policy_accepted: true, license_accepted: true });
const SIGNING_SECRET = 'bench-url-signing-secret-for-the-scale-bench';
// the secrets production settings (DATABASE_URL) require
const ADMIN_TOKEN = 'bench-admin-token-for-the-scale-bench-0123456789';
const ATTESTATION_KEY = `0x${'b5'.repeat(32)}`;
const run = promisify(execFile);

/** CPU (user + system) of a process, with `reaped` its waited-for children's too, ms. */
function cpuOf(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
    return (ticks / 100) * 1000;
  } catch {
    return 0; // gone
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The Postgres cluster's CPU so far: postmaster (with its reaped backends) + live backends. */
function postgresCpu(postmaster: number): number {
  return cpuOf(postmaster, true) + childrenOf(postmaster).reduce((n, c) => n + cpuOf(c), 0);
}

interface Proc {
  child: ChildProcess;
  /** Its stdout and stderr (pino's JSON lines). */
  log: string;
  stop(): Promise<void>;
}

/** `root`: the package whose build runs (default this one; ./search-cpu.ts runs another beside it). */
function startProc(
  command: string,
  env: Record<string, string>,
  log: string,
  root = ROOT,
  nodeArgs: string[] = [],
): Proc {
  const served = servedNode();
  const child = spawn(
    process.execPath,
    [...served.execArgv, ...nodeArgs, path.join(root, 'dist/src/main.js'), command],
    {
      env: { ...process.env, NODE_ENV: 'production', ...served.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // the logs, kept as a log collector would
  const file = createWriteStream(log, { flags: 'a' });
  child.stdout!.pipe(file, { end: false });
  child.stderr!.pipe(file, { end: false });
  const closed = new Promise((r) => child.once('close', r));
  return {
    child,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
      await new Promise((r) => file.end(r));
    },
  };
}

/**
 * The lines of a log that tell of a server error: level error or fatal, or a 5xx answer (the
 * request line's `status`, src/http/plugins/logging.ts).
 */
function serverErrors(log: string): string[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => /"level":(50|60)\b/.test(l) || /"status(Code)?":5\d\d\b/.test(l));
}

export async function healthy(base: string, proc: Proc): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (proc.child.exitCode !== null) {
      await proc.stop();
      const tail = readFileSync(proc.log, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`${base}: exited ${proc.child.exitCode}; its log ends:\n${tail}`);
    }
    if (
      await fetch(`${base}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${base}: not healthy within 300 s`);
    await sleep(50);
  }
}

export interface System {
  name: string;
  bases: string[];
  procs: Proc[];
  cpu(): number;
  stop(): Promise<void>;
}

/** Service processes on `env` (one per base, plus a worker when `worker`), with their CPU. */
export async function startSystem(
  name: string,
  env: Record<string, string>,
  replicas: number,
  worker: boolean,
  logDir: string,
  postmaster?: number,
  command: 'serve' | 'demo' = 'serve',
  root = ROOT,
  nodeArgs: string[] = [],
): Promise<System> {
  const procs: Proc[] = [];
  const bases: string[] = [];
  const log = (what: string) => path.join(logDir, `${name.replace(/\W+/g, '-')}-${what}.log`);
  for (let i = 0; i < replicas; i++) {
    const port = await freePort();
    const p = startProc(
      command,
      { ...env, HOST: '127.0.0.1', PORT: String(port) },
      log(`${i}`),
      root,
      nodeArgs,
    );
    procs.push(p);
    bases.push(`http://127.0.0.1:${port}`);
  }
  if (worker) procs.push(startProc('worker', env, log('worker'), root));
  await Promise.all(bases.map((b, i) => healthy(b, procs[i]!)));
  return {
    name,
    bases,
    procs,
    cpu: () =>
      procs.reduce((n, p) => n + cpuOf(p.child.pid!), 0) +
      (postmaster ? postgresCpu(postmaster) : 0),
    async stop() {
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

interface Load {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  failures: number;
  statuses: Record<number, number>;
}

async function measure(
  driver: Driver,
  system: System,
  job: Parameters<Driver['job']>[0],
  n: number,
): Promise<Load> {
  const cpu = system.cpu();
  const r = await driver.job({ ...job, latencies: true });
  const used = system.cpu() - cpu;
  const sorted = r.latencies!.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    perSecond: Math.round(n / r.seconds),
    p50Ms: round(pct(sorted, 0.5)),
    p99Ms: round(pct(sorted, 0.99)),
    cpuMsPerRequest: Number((used / n).toFixed(2)),
    failures: r.failures,
    statuses: r.statuses,
  };
}

export const searchUrls = (bases: string[], n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${bases[i % bases.length]}/api/v1/search?q=${encodeURIComponent(SEARCHES[i % SEARCHES.length]!)}`,
  );

/** The acquire URL of a purchasable demo listing on every base, and its prompt. */
async function purchaseTarget(bases: string[]) {
  const items = (await (
    await fetch(`${bases[0]}/api/v1/search?q=api&max_price=50`)
  ).json()) as Array<{ id: string }>;
  if (!items.length) throw new Error('the demo catalogue is empty');
  const urls = bases.map((b) => `${b}/api/v1/items/${items[0]!.id}/acquire`);
  const res = await fetch(urls[0]!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
  });
  if (res.status !== 402) throw new Error(`acquire prompt ${res.status}`);
  const required = JSON.parse(
    Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
  return { urls, required };
}

/** `rate`: the open loop's offered searches per second, or (undefined) 70% of this system's saturated throughput. */
async function benchSystem(driver: Driver, system: System, rate: number | undefined) {
  const { bases } = system;
  // warm-up: JIT, plans, the pools' connections
  await driver.job({ urls: searchUrls(bases, 400), concurrency: CONNECTIONS });
  const idle = await measure(
    driver,
    system,
    { urls: searchUrls(bases, IDLE_N), concurrency: 1 },
    IDLE_N,
  );
  const search = await measure(
    driver,
    system,
    { urls: searchUrls(bases, SEARCH_N), concurrency: CONNECTIONS },
    SEARCH_N,
  );
  const offered = rate ?? Math.max(1, Math.round(search.perSecond * 0.7 * 10) / 10);
  const openN = Math.max(1, Math.round(offered * OPEN_SECONDS));
  const open = await measure(
    driver,
    system,
    { urls: searchUrls(bases, openN), concurrency: CONNECTIONS, rate: offered },
    openN,
  );
  const target = await purchaseTarget(bases);
  const wallets = Array.from({ length: 40 }, () => newWallet());
  const requirement = target.required.accepts[0]!;
  const warm = await signHeaders(wallets, target.required, requirement, 200);
  await driver.job({ targets: target.urls, headers: warm, body: BODY, concurrency: CONNECTIONS });
  const headers = await signHeaders(wallets, target.required, requirement, PURCHASE_N);
  const paid = await measure(
    driver,
    system,
    { targets: target.urls, headers, body: BODY, concurrency: CONNECTIONS },
    PURCHASE_N,
  );
  const row = {
    idle_search_p50_ms: idle.p50Ms,
    search,
    search_p99_vs_idle_p50: Number((search.p99Ms / idle.p50Ms).toFixed(1)),
    open: { offeredPerSecond: offered, ...open },
    open_p99_vs_idle_p50: Number((open.p99Ms / idle.p50Ms).toFixed(1)),
    paid,
  };
  console.log(
    `  ${system.name.padEnd(12)} search ${search.perSecond}/s p50 ${search.p50Ms} p99 ${search.p99Ms} ms (idle p50 ${idle.p50Ms}: p99 ${row.search_p99_vs_idle_p50}x), CPU ${search.cpuMsPerRequest} ms/req; ` +
      `open loop at ${offered}/s: p50 ${open.p50Ms} p99 ${open.p99Ms} ms (${row.open_p99_vs_idle_p50}x idle p50), CPU ${open.cpuMsPerRequest} ms/req; ` +
      `paid ${paid.perSecond}/s p50 ${paid.p50Ms} p99 ${paid.p99Ms} ms, CPU ${paid.cpuMsPerRequest} ms/req; failures ${search.failures}/${open.failures}/${paid.failures}`,
  );
  return row;
}

/** The cluster: PG_ADMIN_URL's, else a throwaway one from scripts/postgres.sh (stopped after). */
export async function cluster(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.PG_ADMIN_URL) return { adminUrl: process.env.PG_ADMIN_URL, stop: async () => {} };
  const script = path.join(ROOT, 'scripts/postgres.sh');
  const state = path.join(mkdtempSync(path.join(tmpdir(), 'bench-scale-pg-')), 'dir');
  const env = { ...process.env, PG_STATE_FILE: state };
  const { stdout } = await run(script, ['start'], { env });
  const adminUrl = /PG_ADMIN_URL=(\S+)/.exec(stdout)?.[1];
  if (!adminUrl) throw new Error(`scripts/postgres.sh start said: ${stdout}`);
  const dir = readFileSync(state, 'utf8').trim();
  return {
    adminUrl,
    stop: async () => {
      await run(script, ['stop', dir], { env });
    },
  };
}

/**
 * A fresh database on the cluster, and the services' environments: on it (`onPg`, no in-process
 * worker) and embedded (`embedded`, its own data directory); `postmaster` is the cluster's pid.
 */
export async function benchEnvs(adminUrl: string, tmp: (prefix: string) => string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const db = `bench_scale_${Date.now()}`;
  await admin.unsafe(`create database ${db}`);
  const [backend] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const postmaster = Number(
    /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${backend!.pid}/status`, 'utf8'))![1],
  );
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${db}`;
  const common = {
    LOG_LEVEL: 'info',
    LOCAL_FACILITATOR_START_BALANCE_USDC: '1000000',
    URL_SIGNING_SECRET: SIGNING_SECRET,
    // the one address clients use (a load balancer's): prompts are the same on every replica
    PUBLIC_BASE_URL: 'http://marketplace.test',
  };
  const onPg: Record<string, string> = {
    ...common,
    DATABASE_URL: url.toString(),
    ADMIN_TOKEN,
    ATTESTATION_PRIVATE_KEY: ATTESTATION_KEY,
    ARCHIVES_DIR: tmp('bench-scale-archives-'),
    IN_PROCESS_WORKER: 'false',
  };
  const embedded: Record<string, string> = { ...common, DATA_DIR: tmp('bench-scale-data-') };
  return { onPg, embedded, postmaster };
}

export async function benchScale(): Promise<Record<string, unknown>> {
  await ensureNpmBuild();
  const loadBefore = loadavg()[0]!;
  const pg = await cluster();
  const driver = await Driver.start(CONNECTIONS);
  const dirs: string[] = [];
  const tmp = (p: string) => {
    const d = mkdtempSync(path.join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  const logDir = mkdtempSync(path.join(tmpdir(), 'bench-scale-logs-'));
  let keepLogs = false;
  const result: Record<string, unknown> = {
    connections: CONNECTIONS,
    searches: SEARCH_N,
    purchases: PURCHASE_N,
  };
  try {
    const { onPg, embedded, postmaster } = await benchEnvs(pg.adminUrl, tmp);
    if (process.env.BENCH_SCALE_POOL) onPg.DATABASE_POOL_MAX = process.env.BENCH_SCALE_POOL;

    const only = process.env.BENCH_SCALE_SYSTEMS?.split(',').map((n) => n.trim());
    const runs = (name: string) => !only || only.includes(name);
    // the demo catalogue, once per database (migrations, listings), then stopped
    for (const [name, env] of [
      ['embedded', embedded],
      ['postgres', { ...onPg, IN_PROCESS_WORKER: 'true' }],
    ] as const) {
      if (name === 'embedded' ? !runs('embedded') : !runs('postgres x1') && !runs('postgres x2'))
        continue;
      const seeded = await startSystem(`seed ${name}`, env, 1, false, logDir, undefined, 'demo');
      await seeded.stop();
    }
    console.log(
      `scale (${CONNECTIONS} connections, loopback; load average ${loadBefore.toFixed(1)} before):`,
    );
    const systems: Array<[string, Record<string, string>, number, boolean, number | undefined]> = [
      ['embedded', embedded, 1, false, undefined],
      ['postgres x1', onPg, 1, true, postmaster],
      ['postgres x2', onPg, 2, true, postmaster],
    ];
    const rows: Record<string, Awaited<ReturnType<typeof benchSystem>>> = {};
    const errors: Record<string, number> = {};
    // the open loop's one offered rate: set, or 70% of the first system's saturated throughput
    let rate = OPEN_RATE || undefined;
    for (const [name, env, replicas, worker, pm] of systems) {
      if (!runs(name)) continue;
      const system = await startSystem(name, env, replicas, worker, logDir, pm);
      try {
        rows[name] = await benchSystem(driver, system, rate);
        rate ??= rows[name].open.offeredPerSecond;
      } finally {
        await system.stop();
        const lines = system.procs.flatMap((p) =>
          serverErrors(p.log).map((l) => `${path.basename(p.log)}: ${l}`),
        );
        errors[name] = lines.length;
        if (lines.length) {
          keepLogs = true;
          console.log(`  ${name}: ${lines.length} error lines or 5xx answers in its logs:`);
          for (const l of lines.slice(0, 20)) console.log(`    ${l.slice(0, 2000)}`);
        }
      }
    }
    result.systems = rows;
    result.log_errors = errors;
    if (rows['postgres x2'] && rows.embedded) {
      const ratio = rows['postgres x2'].search.perSecond / rows.embedded.search.perSecond;
      result.search_x2_vs_embedded = Number(ratio.toFixed(2));
      console.log(`  postgres x2 / embedded search throughput ${ratio.toFixed(2)} (goal >= 3)`);
    }
    result.goals = {
      search_x2_vs_embedded: '>= 3 (closed loop)',
      open_p99_vs_idle_p50: '<= 10 (open loop, one offered rate)',
    };
    result.loadavg = { before: loadBefore, after: loadavg()[0] };
    console.log(
      `  open loop at ${rate}/s, p99 / idle p50: ` +
        Object.entries(rows)
          .map(([n, r]) => `${n} ${r.open_p99_vs_idle_p50}`)
          .join(', ') +
        ` (goal <= 10); closed loop: ` +
        Object.entries(rows)
          .map(([n, r]) => `${n} ${r.search_p99_vs_idle_p50}`)
          .join(', ') +
        `; load average ${loadavg()[0]!.toFixed(1)} after`,
    );
    return result;
  } finally {
    driver.stop();
    await pg.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    if (keepLogs) console.log(`  the services' logs are kept in ${logDir}`);
    else rmSync(logDir, { recursive: true, force: true });
  }
}
