import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBuilt } from '../helpers/build.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { median } from './load.js';
import { cpuMsOfPid, variants, type Variant } from './payments-served.js';

/**
 * `npm run bench -- idle_variants`: the idle demo (`npm run demo`'s built entry, a fresh data
 * directory each) as `npm start` runs it and as each of BENCH_IDLE_VARIANTS (the payments bench's
 * syntax: `name:NAME=value --flag;...`, environment added to npm start's, flags replacing its),
 * in BENCH_IDLE_ROUNDS (3) interleaved rounds, the order rotating. In a round the variants start
 * one after another (each to healthy alone), then idle side by side. Per variant: CPU to healthy,
 * peak resident memory (VmHWM) at healthy, resident memory 5 s and BENCH_IDLE_SECONDS (60) s after
 * healthy, the peak then and the CPU spent idling (background compiles).
 */
const ROUNDS = Number(process.env.BENCH_IDLE_ROUNDS ?? 3);
const IDLE_S = Number(process.env.BENCH_IDLE_SECONDS ?? 60);

const statusMb = (pid: number, field: string) =>
  Math.round(
    Number(
      new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0,
    ) / 1024,
  );

interface Sample {
  startCpuMs: number;
  startPeakMb: number;
  rss5Mb: number;
  rssLateMb: number;
  peakLateMb: number;
  idleCpuMs: number;
}

interface Running {
  child: ChildProcess;
  dataDir: string;
  healthyAt: number;
  startCpuMs: number;
  startPeakMb: number;
  rss5Mb?: number;
}

async function start(v: Variant): Promise<Running> {
  const dataDir = mkdtempSync(path.join(v.dir ?? tmpdir(), 'bench-idle-'));
  const { base, env } = await loopbackServiceEnv(dataDir, 'warn');
  const child = spawn(process.execPath, [...v.execArgv, v.entry, 'demo'], {
    env: { ...env, ...v.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${v.name}: exited ${child.exitCode}`);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`${v.name}: not healthy within 300 s`);
    await sleep(5);
  }
  return {
    child,
    dataDir,
    healthyAt: Date.now(),
    startCpuMs: cpuMsOfPid(child.pid!),
    startPeakMb: statusMb(child.pid!, 'VmHWM'),
  };
}

async function stop(r: Running): Promise<void> {
  if (r.child.exitCode === null) {
    const gone = new Promise((resolve) => r.child.once('exit', resolve));
    r.child.kill('SIGTERM');
    await gone;
  }
  rmSync(r.dataDir, { recursive: true, force: true });
}

export async function benchIdleVariants(): Promise<Record<string, unknown>> {
  await ensureBuilt();
  const vs = variants(process.env.BENCH_IDLE_VARIANTS ?? '');
  const loadBefore = loadavg()[0]!;
  const samples = vs.map(() => [] as Sample[]);
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = vs.map((_, k) => (k + round) % vs.length);
    const running = new Map<number, Running>();
    try {
      for (const i of order) running.set(i, await start(vs[i]!));
      const at = async (seconds: number, read: (i: number, r: Running) => void) => {
        for (const i of order) {
          const r = running.get(i)!;
          const wait = r.healthyAt + seconds * 1000 - Date.now();
          if (wait > 0) await sleep(wait);
          read(i, r);
        }
      };
      await at(5, (_, r) => (r.rss5Mb = statusMb(r.child.pid!, 'VmRSS')));
      await at(IDLE_S, (i, r) =>
        samples[i]!.push({
          startCpuMs: r.startCpuMs,
          startPeakMb: r.startPeakMb,
          rss5Mb: r.rss5Mb!,
          rssLateMb: statusMb(r.child.pid!, 'VmRSS'),
          peakLateMb: statusMb(r.child.pid!, 'VmHWM'),
          idleCpuMs: cpuMsOfPid(r.child.pid!) - r.startCpuMs,
        }),
      );
      loads.push(Number(loadavg()[0]!.toFixed(2)));
    } finally {
      for (const r of running.values()) await stop(r);
    }
  }
  const range = (xs: number[]) => `${Math.min(...xs)}-${Math.max(...xs)}`;
  const rows = vs.map((v, i) => {
    const s = samples[i]!;
    const col = (k: keyof Sample) => s.map((x) => Math.round(x[k]));
    return {
      variant: v.name,
      env: v.env,
      node_flags: v.execArgv.join(' '),
      start_cpu_ms: median(col('startCpuMs')),
      start_cpu_ms_range: range(col('startCpuMs')),
      // per round against npm start's in the same round, then the median
      start_cpu_vs_npm_start: Number(
        median(s.map((x, r) => x.startCpuMs / samples[0]![r]!.startCpuMs)).toFixed(3),
      ),
      start_peak_mb: range(col('startPeakMb')),
      rss_5s_mb: range(col('rss5Mb')),
      [`rss_${IDLE_S}s_mb`]: range(col('rssLateMb')),
      [`peak_${IDLE_S}s_mb`]: range(col('peakLateMb')),
      idle_cpu_ms: range(col('idleCpuMs')),
      rounds: s,
    };
  });
  const result = {
    rounds: ROUNDS,
    idle_seconds: IDLE_S,
    loadavg: { before: Number(loadBefore.toFixed(2)), after_each_round: loads },
    variants: rows,
  };
  console.log(
    [
      `idle demo, ${ROUNDS} interleaved rounds (load ${result.loadavg.before} -> ${loads.join(', ')}):`,
      ...rows.map(
        (x) =>
          `  ${x.variant.padEnd(12)} start CPU ${x.start_cpu_ms} ms (${x.start_cpu_ms_range}; ×${x.start_cpu_vs_npm_start}), peak ${x.start_peak_mb} MB; ` +
          `resident 5 s ${x.rss_5s_mb} MB, ${IDLE_S} s ${x[`rss_${IDLE_S}s_mb`] as string} MB (peak ${x[`peak_${IDLE_S}s_mb`] as string}); idle CPU ${x.idle_cpu_ms} ms`,
      ),
    ].join('\n'),
  );
  return result;
}
