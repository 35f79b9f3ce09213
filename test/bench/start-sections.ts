import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { servedNode } from '../helpers/served-node.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * `npm run bench -- start_sections` (`BENCH_START_SECTIONS_ROUNDS`, default 3; needs `npm run
 * build`): where the main thread of an existing-directory start of the built entry spends its CPU
 * among the bundle's modules and the app's build (issue 25, stop 45). A copy of dist/ gets a mark
 * before each module's section of the bundle (esbuild's `// src/...` comments: the main thread's
 * CPU from one mark to the next is that module's top-level evaluation), a mark after each step of
 * buildApp, and a counter in zod's `$constructor` (every schema and check instance) and
 * `toJSONSchema`. Reported per start, up to the process's exit after its first healthy answer
 * (SIGINT): CPU of the wire schemas' modules (src/wire), of zod's own, of the rest of ours, each
 * buildApp step, and the zod instances built by module. The marks cost CPU of their own: read the
 * figures against each other, never against the startup bench.
 */
export async function benchStartSections(): Promise<Record<string, unknown>> {
  const rounds = Number(process.env.BENCH_START_SECTIONS_ROUNDS ?? 3);
  const work = mkdtempSync(path.join(tmpdir(), 'start-sections-'));
  try {
    const root = instrumentedCopy(work);
    const dataDir = path.join(work, 'data');
    await startOnce(root, dataDir); // the fresh start makes the existing directory
    const runs: Sections[] = [];
    for (let i = 0; i < rounds; i++) runs.push(await startOnce(root, dataDir));
    for (const [i, r] of runs.entries()) {
      console.log(`start ${i + 1}: ${JSON.stringify(r)}`);
    }
    return { rounds: runs };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface Sections {
  groups: Record<string, number>;
  wire: Record<string, number>;
  buildApp: Record<string, number>;
  zodInstances: number;
  toJSONSchema: number;
  zodInstancesBySection: Record<string, number>;
}

function instrumentedCopy(work: string): string {
  const root = path.join(work, 'root');
  cpSync(path.join(ROOT, 'dist'), path.join(root, 'dist'), { recursive: true });
  for (const name of ['node_modules', 'migrations', 'package.json']) {
    symlinkSync(path.join(ROOT, name), path.join(root, name));
  }
  const bundle = path.join(root, 'dist/bundle');
  let zodPatched = 0;
  for (const file of readdirSync(bundle).filter((f) => f.endsWith('.js'))) {
    let text = readFileSync(path.join(bundle, file), 'utf8');
    text = text.replace(
      /^\/\/ ((?:src|mcp|node_modules)\/\S+\.(?:ts|js|mjs|cjs|json))$/gm,
      (line, name: string) => `globalThis.__sec?.(${JSON.stringify(name)});\n${line}`,
    );
    const before = text;
    text = text.replace(
      /(function \$constructor\([^)]*\) \{[\s\S]*?function init\(inst, def\) \{\n\s*if \(!inst\._zod\) \{)/,
      '$1 globalThis.__zc = (globalThis.__zc ?? 0) + 1;',
    );
    text = text.replace(
      /^(function toJSONSchema\([^)]*\) \{)/m,
      '$1 globalThis.__zj = (globalThis.__zj ?? 0) + 1;',
    );
    if (text !== before) zodPatched++;
    const start = text.indexOf('async function buildApp(');
    if (start >= 0) {
      const end = text.indexOf('\n}\n', start);
      const body = text
        .slice(start, end)
        .split('\n')
        .map((line) => {
          const step =
            /^\s+(?:await )?(?:app\.register\((\w+)|(install\w+|register\w+)\(|\}\)\.withTypeProvider)/.exec(
              line,
            );
          if (!step || !line.trimEnd().endsWith(';')) return line;
          const name = step[1] ?? step[2] ?? 'Fastify()';
          return `${line}\n  globalThis.__mark?.(${JSON.stringify(name)});`;
        });
      body.splice(1, 0, "  globalThis.__mark?.('begin');");
      text = text.slice(0, start) + body.join('\n') + text.slice(end);
    }
    writeFileSync(path.join(bundle, file), text);
  }
  if (!zodPatched) throw new Error("zod's $constructor was not found in the bundle (an upgrade?)");
  writeFileSync(path.join(root, 'marks.mjs'), MARKS);
  return root;
}

/** The preloaded module: per-section CPU and zod counts, printed as JSON at exit. */
const MARKS = `
const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
const secs = {}, counts = {}, steps = {};
let cur, t = cpu(), zc = 0, mt;
globalThis.__sec = (name) => {
  const n = cpu();
  if (cur) { secs[cur] = (secs[cur] ?? 0) + n - t; counts[cur] = (counts[cur] ?? 0) + (globalThis.__zc ?? 0) - zc; }
  cur = name; t = n; zc = globalThis.__zc ?? 0;
};
globalThis.__mark = (k) => { const n = cpu(); globalThis.__sec('(after ' + k + ')'); if (mt !== undefined) steps[k] = n - mt; mt = n; };
process.on('exit', () => {
  globalThis.__sec('(end)');
  const sum = (re) => Object.entries(secs).filter(([k]) => re.test(k)).reduce((a, [, v]) => a + v, 0);
  const r1 = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  process.stderr.write('SECTIONS ' + JSON.stringify({
    groups: r1({ wire: sum(/^src\\/wire\\//), zod: sum(/^node_modules\\/zod\\//), ours: sum(/^(src|mcp)\\/(?!wire)/), packages: sum(/^node_modules\\/(?!zod)/) }),
    wire: r1(Object.fromEntries(Object.entries(secs).filter(([k]) => k.startsWith('src/wire/')))),
    buildApp: r1(steps),
    zodInstances: globalThis.__zc ?? 0,
    toJSONSchema: globalThis.__zj ?? 0,
    zodInstancesBySection: Object.fromEntries(Object.entries(counts).filter(([, v]) => v >= 10).sort((a, b) => b[1] - a[1])),
  }) + '\\n');
});
`;

async function startOnce(root: string, dataDir: string): Promise<Sections> {
  const { base, env } = await loopbackServiceEnv(dataDir, 'warn');
  const served = servedNode(root);
  const child = spawn(
    process.execPath,
    [...served.execArgv, '--import', path.join(root, 'marks.mjs'), 'dist/src/main.js', 'serve'],
    { cwd: root, env: { ...env, ...served.env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited before healthy:\n${err}`);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(5);
  }
  child.kill('SIGINT');
  await exited;
  const line = /^SECTIONS (.*)$/m.exec(err);
  if (!line) throw new Error(`no sections printed:\n${err}`);
  return JSON.parse(line[1]!) as Sections;
}
