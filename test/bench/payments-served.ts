import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import secp256k1 from 'secp256k1';
import type { LocalAccount } from 'viem';
import { ensureNpmBuild, ROOT } from '../helpers/build.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { servedNode } from '../helpers/served-node.js';
import { newWallet } from '../helpers/wallets.js';
import { Driver, median, type Round } from './load.js';
import { paidServer } from './paid-server.js';
import { digestsOf } from './payments.js';

/**
 * `npm run bench -- payments`: the cost of a paid completion as a user's request meets it. The
 * service is `npm run build`'s entry, started with `npm start`'s node flags and environment
 * (../helpers/served-node.ts) in its own process on a data directory on disk (the demo catalogue,
 * default LOG_LEVEL), on a loopback socket; the load comes from another process over keep-alive
 * connections (./payments-driver.ts), every payment signed beforehand by the official x402 client
 * (`@x402/core`'s x402Client with `@x402/evm`'s exact scheme: what `@x402/fetch` signs with).
 *
 * Two kinds of buyer, in interleaved rounds of N completions each:
 * - repeat: 40 wallets that have bought before, in turn;
 * - first-time: a wallet never seen, per completion (the purchase provisions its account).
 * The service's CPU per completion is read from /proc/<pid>/stat (user + system, every thread of
 * the process: JIT, GC and the WebAssembly compiler included), not wall time, and divided by the
 * CPU of one native signature recovery (the `secp256k1` binding on the same payments' digests)
 * measured in this process in the same round. Goals: repeat <= 25x, first-time <= 35x.
 *
 * Beside it, in the same rounds, the in-process figure: the same app in this process
 * (./paid-server.ts, on disk, logging silent, this process's node flags), its CPU from
 * process.cpuUsage(): the gap between the two is what the served process pays on top.
 *
 * Every side first runs WARMUP completions of each kind (V8's tiers, PGlite's WebAssembly tiers
 * up); then ROUNDS rounds. BENCH_PAYMENTS_VARIANTS adds served variants to the same rounds:
 * `name:NAME=value --flag;name2:...` (e.g. `quiet:LOG_LEVEL=warn`); `entry=/path/dist/src/main.js`
 * in a variant serves another build (a before/after in one run), `dir=/dev/shm` puts its data directory there.
 * BENCH_PAYMENTS_LONE=K adds, per side and measured round, K repeat completions one at a time
 * (nothing else in flight): the latency of a lone request, p50 over the rounds.
 * BENCH_PAYMENTS_STRACE=1 counts each served process's fsync and fdatasync calls over the whole run
 * (`strace -c -f`, which slows the process: read its CPU figures from another run).
 */
/** A whole number from the environment, at least `min`; anything else stops the bench at once. */
export function countEnv(name: string, fallback: number, min: number, env = process.env): number {
  const raw = env[name];
  const n = raw === undefined || raw.trim() === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: a whole number >= ${min}`);
  return n;
}
const N = countEnv('BENCH_PAYMENTS_N', 600, 1);
const CONCURRENCY = countEnv('BENCH_PAYMENTS_CONCURRENCY', 8, 1);
/** 0: no warm-up round, the first rounds measured cold. */
const WARMUP = countEnv('BENCH_PAYMENTS_WARMUP', 1200, 0);
const ROUNDS = countEnv('BENCH_PAYMENTS_ROUNDS', 5, 1);
const IN_PROCESS = process.env.BENCH_PAYMENTS_IN_PROCESS !== '0';
const LONE = countEnv('BENCH_PAYMENTS_LONE', 0, 0);
const STRACE = process.env.BENCH_PAYMENTS_STRACE === '1';
export const BODY = JSON.stringify({ policy_accepted: true, license_accepted: true });
const REPEAT_WALLETS = 40;

export interface Variant {
  name: string;
  env: Record<string, string>;
  execArgv: string[];
  entry: string;
  /** Where its data directory is made (`dir=/dev/shm`: a file system in memory). */
  dir?: string;
}

export function variants(spec = process.env.BENCH_PAYMENTS_VARIANTS ?? ''): Variant[] {
  const served = servedNode();
  const entry = path.join(ROOT, 'dist/src/main.js');
  const out: Variant[] = [{ name: 'npm start', ...served, entry }];
  for (const s of spec.split(';').filter((x) => x.trim())) {
    const [name, words = ''] = s.split(/:(.*)/s);
    const v: Variant = { name: name!.trim(), env: { ...served.env }, execArgv: [], entry };
    let flags: string[] | undefined;
    for (const w of words.trim().split(/\s+/).filter(Boolean)) {
      if (w.startsWith('--')) (flags ??= []).push(w);
      else if (w.startsWith('entry=')) v.entry = w.slice('entry='.length);
      else if (w.startsWith('dir=')) v.dir = w.slice('dir='.length);
      else {
        const [k, ...rest] = w.split('=');
        v.env[k!] = rest.join('=');
      }
    }
    v.execArgv = flags ?? served.execArgv;
    out.push(v);
  }
  return out;
}

/** CPU time (user + system) of one process so far, every thread of it, ms. */
export function cpuMsOfPid(pid: number): number {
  const t = cpuSplitOfPid(pid);
  return t.user + t.system;
}

/** User and system (kernel) CPU time of one process so far, every thread of it, ms. */
export function cpuSplitOfPid(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in USER_HZ ticks (100 a second on Linux)
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** A purchase prompt's item URL and its PAYMENT-REQUIRED. */
export interface Target {
  url: string;
  required: PaymentRequired;
}

async function promptOf(url: string): Promise<Target> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
  });
  if (res.status !== 402) throw new Error(`acquire prompt ${res.status}: ${await res.text()}`);
  const required = JSON.parse(
    Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
  return { url, required };
}

export interface Served extends Target {
  variant: Variant;
  child: ChildProcess;
  dataDir: string;
}

/** `demo` once (the catalogue, then stopped), then `serve` on the same directory, as `npm start`. */
export async function startServed(variant: Variant): Promise<Served> {
  const dataDir = mkdtempSync(path.join(variant.dir ?? tmpdir(), 'bench-pay-served-'));
  const run = async (command: 'demo' | 'serve') => {
    // LOG_LEVEL as the service defaults it (info): per-request logging is part of the cost
    const { base, env } = await loopbackServiceEnv(dataDir, 'info');
    delete env.LOG_LEVEL;
    const child = spawn(process.execPath, [...variant.execArgv, variant.entry, command], {
      env: { ...env, LOCAL_FACILITATOR_START_BALANCE_USDC: '1000000', ...variant.env },
      // the logs go to a pipe this process drains, as to a log collector
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // BENCH_PAYMENTS_LOG_DIR keeps each side's output (its log lines, and a `--trace-gc` variant's)
    if (process.env.BENCH_PAYMENTS_LOG_DIR)
      child.stdout!.pipe(
        createWriteStream(
          path.join(
            process.env.BENCH_PAYMENTS_LOG_DIR,
            `${variant.name.replace(/\W+/g, '_')}-${command}.log`,
          ),
        ),
      );
    else child.stdout!.resume();
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${variant.name}: exited ${child.exitCode}`);
      const ok = await fetch(`${base}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${variant.name}: not healthy within 300 s`);
      await sleep(50);
    }
    return { base, child };
  };
  const demo = await run('demo');
  await stop(demo.child);
  const { base, child } = await run('serve');
  const items = (await (await fetch(`${base}/api/v1/search?q=api&max_price=50`)).json()) as Array<{
    id: string;
  }>;
  if (!items.length) throw new Error(`${variant.name}: the demo catalogue is empty`);
  const target = await promptOf(`${base}/api/v1/items/${items[0]!.id}/acquire`);
  return { variant, child, dataDir, ...target };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Signs like `@x402/fetch` does: x402Client + the exact EVM scheme, then the v2 header. */
export async function signOfficial(
  wallets: LocalAccount[],
  required: PaymentRequired,
  n: number,
): Promise<string[]> {
  const clients = new Map<LocalAccount, x402HTTPClient>();
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const wallet = wallets[i % wallets.length]!;
    let http = clients.get(wallet);
    if (!http) {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: wallet });
      clients.set(wallet, (http = new x402HTTPClient(client)));
    }
    const payload = await http.createPaymentPayload(required);
    out.push(http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!);
  }
  return out;
}

/** CPU of one native recovery (ms), over the digests of `headers`. */
export function nativeRecoveryMs(headers: string[]): number {
  const digests = digestsOf(headers);
  const cpu = process.cpuUsage();
  for (const d of digests) secp256k1.ecdsaRecover(d.signature, d.recid, d.digest, false);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / digests.length;
}

/** What a side measured: its rounds and, apart, the CPU of its warm-up rounds (none at WARMUP=0). */
export interface SideRounds {
  name: string;
  repeat: Round[];
  first: Round[];
  warmUpCpuMs: number[];
}

interface Side extends SideRounds {
  target: Target;
  /** CPU so far of the process that serves this side, ms. */
  cpu: () => number;
  /** Of it, the kernel's (system time) so far, ms. */
  systemCpu: () => number;
  repeatWallets: LocalAccount[];
  /** Milliseconds of each lone completion (BENCH_PAYMENTS_LONE). */
  lone: number[];
  /** Completions sent to it, warm-up included. */
  sent: number;
}

/** Each side's figures against the native recovery of the same rounds, and the lines printed. */
export function servedSummary(
  sides: SideRounds[],
  recovery: number[],
): { perSide: Record<string, Record<string, unknown>>; lines: string[] } {
  const ms = (x: number) => Number(x.toFixed(3));
  const x1 = (x: number) => Number(x.toFixed(1));
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
  const perSide: Record<string, Record<string, unknown>> = {};
  const lines: string[] = [];
  for (const side of sides) {
    const rep = side.repeat.map((r, i) => r.cpuMs / recovery[i]!);
    const fst = side.first.map((r, i) => r.cpuMs / recovery[i]!);
    perSide[side.name] = {
      repeat_cpu_ms: ms(median(side.repeat.map((r) => r.cpuMs))),
      first_time_cpu_ms: ms(median(side.first.map((r) => r.cpuMs))),
      repeat_x_recovery: x1(median(rep)),
      first_time_x_recovery: x1(median(fst)),
      repeat_x_recovery_spread: spread(rep),
      first_time_x_recovery_spread: spread(fst),
      repeat_x_recovery_rounds: rep.map(x1),
      first_time_x_recovery_rounds: fst.map(x1),
      repeat_per_second: Math.round(median(side.repeat.map((r) => r.perSecond))),
      first_time_per_second: Math.round(median(side.first.map((r) => r.perSecond))),
      warm_up_cpu_ms: side.warmUpCpuMs.map(ms),
    };
    const sys = (rs: Round[]) =>
      rs.every((r) => r.systemCpuMs !== undefined)
        ? median(rs.map((r) => r.systemCpuMs!))
        : undefined;
    const repSys = sys(side.repeat);
    const fstSys = sys(side.first);
    if (repSys !== undefined && fstSys !== undefined) {
      Object.assign(perSide[side.name]!, {
        repeat_system_cpu_ms: ms(repSys),
        first_time_system_cpu_ms: ms(fstSys),
      });
    }
    lines.push(
      `  ${side.name.padEnd(12)} repeat ${median(side.repeat.map((r) => r.cpuMs)).toFixed(3)} ms = ${x1(median(rep))}x (${spread(rep)}), ` +
        `first-time ${median(side.first.map((r) => r.cpuMs)).toFixed(3)} ms = ${x1(median(fst))}x (${spread(fst)}) one recovery; ` +
        `${Math.round(median(side.repeat.map((r) => r.perSecond)))}/s and ${Math.round(median(side.first.map((r) => r.perSecond)))}/s` +
        (repSys !== undefined && fstSys !== undefined
          ? `; of the CPU, system ${repSys.toFixed(3)} / ${fstSys.toFixed(3)} ms`
          : ''),
    );
  }
  return { perSide, lines };
}

/** Counts a process's fsync calls (every thread) until the function returned is called. */
function straceFsyncs(pid: number): () => Promise<number> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'strace-')), 'counts');
  const child = spawn(
    'strace',
    ['-f', '-c', '-e', 'trace=fsync,fdatasync', '-o', out, '-p', `${pid}`],
    {
      stdio: 'ignore',
    },
  );
  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
    // % time, seconds, usecs/call, calls, [errors,] syscall: both calls, the WAL's fdatasync too
    const calls = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => /\s(fsync|fdatasync)$/.test(l))
      .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[3]), 0);
    rmSync(path.dirname(out), { recursive: true, force: true });
    return calls;
  };
}

async function measuredRound(driver: Driver, side: Side, headers: string[]): Promise<Round> {
  const before = side.cpu();
  const systemBefore = side.systemCpu();
  const r = await driver.round(side.target.url, headers, BODY);
  return {
    ...r,
    cpuMs: (side.cpu() - before) / headers.length,
    systemCpuMs: (side.systemCpu() - systemBefore) / headers.length,
  };
}

export async function benchPaymentsServed(): Promise<Record<string, unknown>> {
  await ensureNpmBuild();
  const loadBefore = loadavg();
  const servedSides: Served[] = [];
  const driver = await Driver.start(CONCURRENCY);
  const inProcess = IN_PROCESS
    ? await paidServer({ onDisk: true, startBalanceUsdc: 1_000_000 })
    : undefined;
  try {
    for (const v of variants()) servedSides.push(await startServed(v));
    const sides: Side[] = servedSides.map((s) => ({
      name: s.variant.name,
      target: s,
      cpu: () => cpuMsOfPid(s.child.pid!),
      systemCpu: () => cpuSplitOfPid(s.child.pid!).system,
      repeatWallets: Array.from({ length: REPEAT_WALLETS }, () => newWallet()),
      repeat: [],
      first: [],
      warmUpCpuMs: [],
      lone: [],
      sent: 0,
    }));
    const traces = STRACE ? servedSides.map((s) => straceFsyncs(s.child.pid!)) : [];
    if (inProcess) {
      sides.push({
        name: 'in process',
        target: { url: inProcess.url, required: inProcess.required },
        cpu: () => {
          const u = process.cpuUsage();
          return (u.user + u.system) / 1000;
        },
        systemCpu: () => process.cpuUsage().system / 1000,
        repeatWallets: Array.from({ length: REPEAT_WALLETS }, () => newWallet()),
        repeat: [],
        first: [],
        warmUpCpuMs: [],
        lone: [],
        sent: 0,
      });
    }
    // the repeat wallets buy once first, so that every measured repeat purchase is a repeat
    for (const side of sides) {
      const first = await signOfficial(side.repeatWallets, side.target.required, REPEAT_WALLETS);
      const r = await driver.round(side.target.url, first, BODY);
      side.sent += first.length;
      if (r.failures) throw new Error(`${side.name}: ${r.failures} first purchases failed`);
    }
    const warmChunks = Math.ceil(WARMUP / N);
    const recovery: number[] = [];
    console.log(
      `${sides.length} sides, ${warmChunks + ROUNDS} rounds of ${N} repeat + ${N} first-time completions each (signing before each round, not timed)…`,
    );
    for (let round = 0; round < warmChunks + ROUNDS; round++) {
      const warm = round < warmChunks;
      // rotate the order, so no side always runs right after another
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + round) % sides.length]!;
        const repeatHeaders = await signOfficial(side.repeatWallets, side.target.required, N);
        const fresh = Array.from({ length: N }, () => newWallet());
        const firstHeaders = await signOfficial(fresh, side.target.required, N);
        const rep = await measuredRound(driver, side, repeatHeaders);
        const fst = await measuredRound(driver, side, firstHeaders);
        side.sent += 2 * N;
        if (rep.failures || fst.failures) {
          throw new Error(
            `${side.name}: failures ${JSON.stringify(rep.statuses)} ${JSON.stringify(fst.statuses)}`,
          );
        }
        if (warm) {
          side.warmUpCpuMs.push(rep.cpuMs, fst.cpuMs);
        } else {
          side.repeat.push(rep);
          side.first.push(fst);
          if (k === 0) recovery.push(nativeRecoveryMs(repeatHeaders));
          if (LONE) {
            const headers = await signOfficial(side.repeatWallets, side.target.required, LONE);
            const r = await driver.job({
              targets: [side.target.url],
              headers,
              body: BODY,
              concurrency: 1,
              latencies: true,
            });
            if (r.failures) throw new Error(`${side.name}: ${r.failures} lone completions failed`);
            side.lone.push(...r.latencies!);
            side.sent += LONE;
          }
        }
      }
    }
    const ms = (x: number) => Number(x.toFixed(3));
    const x1 = (x: number) => Number(x.toFixed(1));
    const result: Record<string, unknown> = {
      completions_per_round: N,
      rounds: ROUNDS,
      warm_up_per_kind: warmChunks * N,
      concurrency: CONCURRENCY,
      loadavg: { before: x1(loadBefore[0]!), after: x1(loadavg()[0]!) },
      native_recovery_ms: ms(median(recovery)),
      goals: { repeat: '<= 25x', first_time: '<= 35x' },
    };
    const { perSide, lines: sideLines } = servedSummary(sides, recovery);
    Object.assign(result, perSide);
    const lines = [
      `paid completions as served (${N} per round x ${ROUNDS} rounds after ${warmChunks * N} of warm-up per kind, concurrency ${CONCURRENCY}; load average ${loadBefore[0]!.toFixed(1)} before):`,
      `  native recovery ${ms(median(recovery))} ms CPU (rounds ${recovery.map((x) => x.toFixed(3)).join(', ')})`,
      ...sideLines,
    ];
    for (const side of sides) {
      if (!LONE) break;
      const p50 = ms(median(side.lone));
      (result[side.name] as Record<string, unknown>).lone_p50_ms = p50;
      lines.push(
        `  ${side.name.padEnd(12)} a lone completion: p50 ${p50} ms (${side.lone.length})`,
      );
    }
    for (const [i, trace] of traces.entries()) {
      const side = sides[i]!;
      const fsyncs = await trace();
      const per = Number((fsyncs / side.sent).toFixed(3));
      (result[side.name] as Record<string, unknown>).fsyncs_per_completion = per;
      lines.push(
        `  ${side.name.padEnd(12)} ${fsyncs} fsync and fdatasync calls over ${side.sent} completions: ${per} each`,
      );
    }
    console.log(lines.join('\n'));
    return result;
  } finally {
    driver.stop();
    for (const s of servedSides) {
      await stop(s.child);
      rmSync(s.dataDir, { recursive: true, force: true });
    }
    await inProcess?.close();
  }
}
