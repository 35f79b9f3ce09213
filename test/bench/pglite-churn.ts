import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedNode } from '../helpers/served-node.js';

/**
 * pglite_churn: does opening and closing the embedded database many times in one process kill it
 * with V8's `Check failed: jit_page_->allocations_.erase(addr) == 1` (in
 * `ThreadIsolation::UnregisterWasmAllocation`, while freeing WebAssembly code)? Seen once in a
 * relevance bench at load ~20 (stop 46); upstream it is a V8 13.6 race between tiering up a
 * wasm-to-JS import wrapper and the wasm code GC freeing wrappers of a dropped module (docs/testing.md,
 * "A V8 fatal under PGlite churn"). Each variant is a node flag set; `BENCH_CHURN_PARALLEL` (3)
 * processes run at once, one after another until `BENCH_CHURN_MINUTES` (20) are over, each
 * opening, using and closing the database `BENCH_CHURN_CYCLES` (20) times (./pglite-churn-child.ts).
 * A process that dies on a signal or with V8's fatal is a crash; its stderr is kept under the
 * printed directory. `BENCH_CHURN_VARIANTS=name:--flag --flag,name2:` picks the variants
 * (default: vitest's worker flags, `npm start`'s, and each with `--no-wasm-code-gc`).
 * Needs `npm run build`. Named only (`npm run bench -- pglite_churn`): it runs for minutes.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

interface Outcome {
  variant: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  fatal: string | undefined;
  cycles: number;
  /** Wall ms of the process's cycles (a loaded machine: compare variants of one run only). */
  ms: number;
}

function runChild(
  variant: string,
  flags: string[],
  cycles: number,
  keep: string,
): Promise<Outcome> {
  const file = fileURLToPath(new URL('./pglite-churn-child.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...flags, '--no-warnings=ExperimentalWarning', file, ROOT, String(cycles)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const fatal = /Check failed: [^\n]*|Fatal error[^\n]*/.exec(err)?.[0];
      let done = { cycles: 0, ms: 0 };
      try {
        done = JSON.parse(out.trim().split('\n').pop() ?? '') as typeof done;
      } catch {
        // died before its line: no cycle counted
      }
      if (code !== 0 || signal)
        writeFileSync(path.join(keep, `${variant}-${child.pid}.stderr`), `${out}\n${err}`);
      resolve({ variant, code, signal, fatal, ...done });
    });
  });
}

export async function benchPGliteChurn(
  env: Record<string, string | undefined> = process.env,
): Promise<Record<string, unknown>> {
  if (!existsSync(path.join(ROOT, 'dist/src/main.js')))
    throw new Error('pglite_churn needs a built checkout (npm run build)');
  const served = servedNode().execArgv;
  const variants: [string, string[]][] = env.BENCH_CHURN_VARIANTS
    ? env.BENCH_CHURN_VARIANTS.split(',').map((v) => {
        const [name, flags = ''] = v.split(':');
        return [name!, flags.split(/\s+/).filter(Boolean)];
      })
    : [
        ['vitest-worker', []],
        ['npm-start', served],
        ['vitest-worker+no-code-gc', ['--no-wasm-code-gc']],
        ['npm-start+no-code-gc', [...served, '--no-wasm-code-gc']],
      ];
  const parallel = Number(env.BENCH_CHURN_PARALLEL ?? 3);
  const cycles = Number(env.BENCH_CHURN_CYCLES ?? 20);
  const until = Date.now() + Number(env.BENCH_CHURN_MINUTES ?? 20) * 60_000;
  const keep = path.join(tmpdir(), `bench-pglite-churn-${process.pid}`);
  mkdirSync(keep, { recursive: true });
  const loads: number[] = [];
  const outcomes: Outcome[] = [];
  let next = 0;
  // the lanes take the variants in turn from one counter, so every variant meets the same load
  const lane = async () => {
    while (Date.now() < until) {
      const [name, flags] = variants[next++ % variants.length]!;
      loads.push(loadavg()[0]!);
      const o = await runChild(name, flags, cycles, keep);
      outcomes.push(o);
      if (o.code !== 0 || o.signal)
        console.log(`${name}: exit ${o.code ?? o.signal} ${o.fatal ?? ''} (kept in ${keep})`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, () => lane()));
  const rows = variants.map(([name, flags]) => {
    const mine = outcomes.filter((o) => o.variant === name);
    const crashed = mine.filter((o) => o.code !== 0 || o.signal);
    return {
      variant: name,
      flags: flags.join(' '),
      processes: mine.length,
      open_close_cycles: mine.reduce((n, o) => n + o.cycles, 0),
      crashed: crashed.length,
      v8_fatal: crashed.filter((o) => o.fatal).length,
      ms_per_cycle: Math.round(
        mine.reduce((n, o) => n + o.ms, 0) /
          Math.max(
            1,
            mine.reduce((n, o) => n + o.cycles, 0),
          ),
      ),
    };
  });
  console.table(rows);
  return {
    node: process.version,
    cycles_per_process: cycles,
    parallel,
    load_1min: {
      min: +Math.min(...loads).toFixed(1),
      max: +Math.max(...loads).toFixed(1),
      mean: +(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1),
    },
    rows,
    stderr_kept_in: keep,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(await benchPGliteChurn(), null, 2));
