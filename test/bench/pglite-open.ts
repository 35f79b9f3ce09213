import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedNode } from '../helpers/served-node.js';

/**
 * pglite_open: where opening the embedded database on an existing data directory spends the main
 * thread, phase by phase (./pglite-open-child.ts): CPU and page faults (a first touch of a page,
 * ~25 µs each on this VM, measured), then the statements run at open with their CPU. Each side (this
 * build; `BENCH_PGLITE_OPEN_BEFORE=<another built checkout>` adds one) first makes its own data
 * directory (a first start from its template, then the vector index), then each round opens a
 * fresh copy of it, the sides interleaved (`BENCH_PGLITE_OPEN_ROUNDS`, 5). Medians per phase.
 * Needs `npm run build`.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

interface Phase {
  name: string;
  cpuMs: number;
  faults: number;
}
interface Open {
  phases: Phase[];
  statements: { cpuMs: number; text: string }[];
}

function openOnce(root: string, dataDir: string): Promise<Open> {
  const file = fileURLToPath(new URL('./pglite-open-child.ts', import.meta.url));
  // with `npm start`'s node flags and environment (this checkout's), as a serving start opens it;
  // no tsx (its loader thread would be in every import): node strips the child's types itself
  const served = servedNode();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...served.execArgv, '--no-warnings=ExperimentalWarning', file, root, dataDir],
      { env: { ...process.env, ...served.env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`pglite-open child exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as Open);
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchPGliteOpen(
  env: Record<string, string | undefined> = process.env,
): Promise<Record<string, unknown>> {
  const rounds = Number(env.BENCH_PGLITE_OPEN_ROUNDS ?? 5);
  const sides: [string, string][] = [['this', ROOT]];
  if (env.BENCH_PGLITE_OPEN_BEFORE)
    sides.push(['before', path.resolve(env.BENCH_PGLITE_OPEN_BEFORE)]);
  for (const [, root] of sides)
    if (!existsSync(path.join(root, 'dist/src/main.js')))
      throw new Error(`pglite_open needs a built checkout (npm run build) at ${root}`);
  const work = mkdtempSync(path.join(tmpdir(), 'bench-pglite-open-'));
  const loadBefore = loadavg()[0]!;
  const runs = new Map<string, Open[]>(sides.map(([name]) => [name, []]));
  try {
    // each side's existing directory: its first start (untimed), as a served start leaves it
    for (const [name, root] of sides) await openOnce(root, path.join(work, `${name}-made`));
    for (let r = 0; r < rounds; r++) {
      for (const [name, root] of r % 2 ? [...sides].reverse() : sides) {
        const dir = path.join(work, `${name}-${r}`);
        cpSync(path.join(work, `${name}-made`), dir, { recursive: true });
        runs.get(name)!.push(await openOnce(root, dir));
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const result: Record<string, unknown> = {
    rounds,
    loadBefore: +loadBefore.toFixed(1),
    loadAfter: +loadavg()[0]!.toFixed(1),
  };
  for (const [name, opens] of runs) {
    const phases = opens[0]!.phases.map((p, i) => ({
      phase: p.name,
      cpuMs: +median(opens.map((o) => o.phases[i]?.cpuMs ?? 0)).toFixed(1),
      faults: median(opens.map((o) => o.phases[i]?.faults ?? 0)),
    }));
    const totals = opens.map((o) => o.phases.reduce((a, p) => a + p.cpuMs, 0));
    const faults = opens.map((o) => o.phases.reduce((a, p) => a + p.faults, 0));
    console.log(`\n${name}: main-thread CPU per phase (median of ${rounds}), page faults`);
    console.table(phases);
    console.log(
      `${name}: total ${median(totals).toFixed(0)} ms (${Math.min(...totals).toFixed(0)}-` +
        `${Math.max(...totals).toFixed(0)}), ${median(faults)} page faults`,
    );
    console.log(`${name}: statements at open (first round), CPU ms`);
    for (const s of opens[0]!.statements)
      console.log(`  ${String(s.cpuMs).padStart(6)}  ${s.text}`);
    result[name] = { totalCpuMs: +median(totals).toFixed(1), faults: median(faults), phases };
  }
  return result;
}
