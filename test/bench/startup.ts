import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { MarketplaceClient, MarketplaceError } from '../../src/client/index.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { hostileCorpus } from '../helpers/hostile.js';
import { servedNode } from '../helpers/served-node.js';
import { newWallet } from '../helpers/wallets.js';
import { median } from './load.js';

/**
 * `npm run bench -- startup`: spawn to the first 200 of `GET /api/v1/health`, for a fresh data
 * directory (the first start) and an existing one, from the built entry (`npm start`) and from
 * source (`npm run dev`), in interleaved rounds beside a bare `node -e 0` start as the floor of the
 * same run. Goals from the built entry: ≤ 1.5 s on an existing data directory, ≤ 5 s on a fresh one.
 *
 * Then memory: the built service's peak resident memory (VmHWM of its process) from a fresh start
 * through a run of hostile uploads, each paying the listing fee, until every scan has finished.
 * Goal: under 400 MB.
 *
 * BENCH_STARTUP_BEFORE=<another checkout, built> adds its built entry to the same interleaved
 * rounds (a before/after in one run); BENCH_STARTUP_ROUNDS.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BEFORE = process.env.BENCH_STARTUP_BEFORE;
const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);

type Entry = 'built' | 'source' | 'before';
type DataDir = 'fresh' | 'existing';

interface Start {
  ms: number;
  /** CPU time (user + system) the service's processes spent up to healthy: less sensitive to load. */
  cpuMs: number;
  /** Peak resident memory of the service's process tree up to healthy, MB. */
  peakMb: number;
}

// the built entries as `npm start` runs them (its node flags and environment); `npm run dev` as is
const served = servedNode();
const servedBefore = BEFORE ? servedNode(BEFORE) : served;
const COMMANDS: Record<Entry, string[]> = {
  built: [process.execPath, ...served.execArgv, 'dist/src/main.js'],
  // what `npm run dev` runs
  source: [path.join(ROOT, 'node_modules/.bin/tsx'), 'src/main.ts'],
  before: [process.execPath, ...servedBefore.execArgv, 'dist/src/main.js'],
};
const ENV: Record<Entry, Record<string, string>> = {
  built: served.env,
  source: {},
  before: servedBefore.env,
};

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-startup-'));
  dirs.push(dir);
  return dir;
}

/** CPU time (user + system, ms) of a process and its descendants so far. */
function cpuMsOf(pid: number): number {
  let ticks = 0;
  try {
    // fields after the command name: state is 3rd, utime 14th, stime 15th
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks = Number(fields[11]) + Number(fields[12]);
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/)) {
      if (child) ticks += (cpuMsOf(Number(child)) / 1000) * 100;
    }
  } catch {
    // gone, or not Linux
  }
  return (ticks / 100) * 1000; // USER_HZ is 100 on Linux
}

/** Peak resident memory (VmHWM) of a process and its descendants (tsx runs the service in a child). */
function peakMb(pid: number): number {
  let kb = 0;
  try {
    kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/)) {
      if (child) kb = Math.max(kb, peakMb(Number(child)) * 1024);
    }
  } catch {
    // gone, or not Linux
  }
  return kb / 1024;
}

interface Service {
  child: ChildProcess;
  base: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Spawns the service and resolves at its first healthy answer, with the time since the spawn. */
async function startService(
  entry: Entry,
  dataDir: string,
  command: 'serve' | 'demo' = 'serve',
): Promise<Service & Start> {
  const { base, env } = await loopbackServiceEnv(dataDir, 'info');
  const [cmd, ...args] = COMMANDS[entry];
  const started = performance.now();
  const child = spawn(cmd!, [...args, command], {
    cwd: entry === 'before' ? BEFORE : ROOT,
    env: { ...env, ...ENV[entry] },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${entry} start exited before healthy:\n${out}`);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(5);
  }
  const ms = performance.now() - started;
  const cpuMs = cpuMsOf(child.pid!);
  return {
    child,
    base,
    ms,
    cpuMs,
    peakMb: peakMb(child.pid!),
    output: () => out,
    async stop() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
    },
  };
}

async function bareNode(): Promise<number> {
  const started = performance.now();
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('exit', resolve);
    child.once('error', reject);
  });
  return performance.now() - started;
}

async function timedStart(entry: Entry, dataDir: string): Promise<Start> {
  const s = await startService(entry, dataDir);
  await s.stop();
  return { ms: s.ms, cpuMs: s.cpuMs, peakMb: s.peakMb };
}

/** Resident memory (Linux VmRSS) of a process now, MB. */
function residentMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

/**
 * `npm run demo` as a user runs it (the built entry, a fresh data directory): resident memory
 * after the 36 demo listings are loaded and the server has idled for a few seconds, and its peak.
 */
export async function idleBuiltDemo(): Promise<{ rssMb: number; peakMb: number }> {
  const s = await startService('built', await tempDir(), 'demo');
  try {
    await sleep(5000);
    return {
      rssMb: Math.round(residentMb(s.child.pid!)),
      peakMb: Math.round(peakMb(s.child.pid!)),
    };
  } finally {
    await s.stop();
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  }
}

/** Fresh start, then every hostile archive uploaded with its fee paid, until each scan is done. */
async function hostileRun(
  entry: Entry = 'built',
): Promise<{ peakMb: number; rssMb: number; uploads: number; refusedAtUpload: number }> {
  const s = await startService(entry, await tempDir());
  try {
    const client = new MarketplaceClient({ baseUrl: s.base, account: newWallet() });
    const ids: string[] = [];
    let refused = 0;
    const corpus = await hostileCorpus();
    for (const c of corpus) {
      try {
        const { listing } = await client.upload(c.bytes, {
          compression: c.compression,
          metadata: {
            title: `Hostile ${c.name}`,
            description: 'A project with something hostile inside, for the memory bench.',
            tech_stack: 'TypeScript',
            prices: { USDC: 5 },
          },
        });
        ids.push(listing.item_id);
      } catch (e) {
        if (!(e instanceof MarketplaceError)) throw e;
        refused++; // refused before any fee (a shape the upload check already rejects)
      }
    }
    // the in-process worker scans them; wait until none is still queued or scanning
    const deadline = Date.now() + 300_000;
    for (const id of ids) {
      for (;;) {
        const { status } = await client.sellerItemStatus(id);
        if (status !== 'pending_scan' && status !== 'scanning') break;
        if (Date.now() > deadline) throw new Error(`scan of ${id} did not finish`);
        await sleep(100);
      }
    }
    return {
      peakMb: Math.round(peakMb(s.child.pid!)),
      // resident once the work is done: the peak is a transient of the start (docs/benchmarks.md)
      rssMb: Math.round(residentMb(s.child.pid!)),
      uploads: corpus.length,
      refusedAtUpload: refused,
    };
  } finally {
    await s.stop();
  }
}

export async function benchStartup(): Promise<Record<string, unknown>> {
  for (const root of [ROOT, ...(BEFORE ? [BEFORE] : [])]) {
    if (!existsSync(path.join(root, 'dist/src/main.js'))) {
      throw new Error(`no build in ${root}: run npm run build first`);
    }
  }
  const template = existsSync(path.join(ROOT, 'dist/db-template/manifest.json'));
  const entries: Entry[] = BEFORE ? ['built', 'source', 'before'] : ['built', 'source'];
  const existing = {} as Record<Entry, string>;
  // warm-up (untimed): makes the existing data directories and fills the OS file cache
  for (const entry of entries) await timedStart(entry, (existing[entry] = await tempDir()));

  const samples: Record<string, Start[]> = {};
  const bare: number[] = [];
  const kinds: Array<[Entry, DataDir]> = [
    ['built', 'existing'],
    ['built', 'fresh'],
    ['source', 'existing'],
    ['source', 'fresh'],
    ...(BEFORE
      ? ([
          ['before', 'existing'],
          ['before', 'fresh'],
        ] as Array<[Entry, DataDir]>)
      : []),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await bareNode());
    // rotate the order each round, so no kind always runs right after another
    for (let k = 0; k < kinds.length; k++) {
      const [entry, dir] = kinds[(k + round) % kinds.length]!;
      const dataDir = dir === 'fresh' ? await tempDir() : existing[entry];
      (samples[`${entry}_${dir}`] ??= []).push(await timedStart(entry, dataDir));
    }
    bare.push(await bareNode());
  }
  const bareMs = median(bare);
  const result: Record<string, unknown> = {
    rounds: ROUNDS,
    template_present: template,
    bare_node_ms: Math.round(bareMs),
  };
  const lines = [
    `startup, spawn to first healthy answer (median of ${ROUNDS} interleaved rounds):`,
  ];
  for (const [name, xs] of Object.entries(samples)) {
    const ms = median(xs.map((x) => x.ms));
    const cpu = median(xs.map((x) => x.cpuMs));
    const peak = Math.max(...xs.map((x) => x.peakMb));
    result[name] = {
      ms: Math.round(ms),
      cpu_ms: Math.round(cpu),
      vs_bare_node: Number((ms / bareMs).toFixed(1)),
      peak_rss_mb: Math.round(peak),
    };
    const goal =
      name === 'built_existing' ? ' (goal ≤ 1500)' : name === 'built_fresh' ? ' (goal ≤ 3000)' : '';
    lines.push(
      `  ${name.padEnd(16)} ${String(Math.round(ms)).padStart(6)} ms${goal}, ${(ms / bareMs).toFixed(1)}× bare node, CPU ${Math.round(cpu)} ms, peak ${Math.round(peak)} MB`,
    );
  }
  lines.push(`  bare node -e 0   ${String(Math.round(bareMs)).padStart(6)} ms`);

  const hostile = await hostileRun();
  result.hostile_uploads = { ...hostile, goal_mb: 400 };
  lines.push(
    `memory: peak resident from a fresh start through ${hostile.uploads} hostile uploads (fees paid, every scan done): ${hostile.peakMb} MB (goal < 400); resident after: ${hostile.rssMb} MB`,
  );
  if (BEFORE) {
    const before = await hostileRun('before');
    result.hostile_uploads_before = before;
    lines.push(
      `  the same with the build in ${BEFORE}: ${before.peakMb} MB; resident after: ${before.rssMb} MB`,
    );
  }
  console.log(lines.join('\n'));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  return result;
}
