/**
 * Where the SERVED process spends a paid completion's CPU, repeat and first-time buyers apart:
 * the built entry with `npm start`'s flags (plus --inspect on a loopback port), warmed up like
 * `npm run bench -- payments`, then one round of each kind with V8's sampling profiler running
 * in the service (started and stopped over the inspector protocol, so the warm-up is not in it)
 * and its garbage collections counted (a perf_hooks observer installed over the same socket).
 *   node --import tsx test/bench/payments-served-profile.ts
 * PROFILE_N (default 2000) per profiled round, PROFILE_WARMUP (1200 per kind), PROFILE_DIR (where
 * the .cpuprofile files go, default /tmp), PROFILE_VARIANT (`NAME=value --flag ...`, as in
 * BENCH_PAYMENTS_VARIANTS), PROFILE_TOP (functions listed, default 30). PROFILE_PERF=1 also records
 * the round with Linux `perf record -g` on the service (on-CPU samples, kernel included; the service
 * runs with --perf-basic-prof so JavaScript frames have names): `perf report -i <file>`.
 * PROFILE_ALLOC=1 samples allocations instead (V8's sampling heap profiler, objects that the
 * scavenger or a major collection freed included): kB allocated per completion and the functions
 * that allocate it, self and inclusive. With PROFILE_ALLOC_SURVIVORS=1 only what outlived a
 * scavenge is counted (what is copied and promoted, and drives the major collections).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureNpmBuild } from '../helpers/build.js';
import { freePort } from '../helpers/ports.js';
import { newWallet } from '../helpers/wallets.js';
import { Driver } from './load.js';
import {
  BODY,
  cpuMsOfPid,
  signOfficial,
  startServed,
  stop,
  variants,
  type Served,
} from './payments-served.js';

const N = Number(process.env.PROFILE_N ?? 2000);
const WARMUP = Number(process.env.PROFILE_WARMUP ?? 1200);
const DIR = process.env.PROFILE_DIR ?? '/tmp';
const TOP = Number(process.env.PROFILE_TOP ?? 30);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

class Cdp {
  private next = 1;
  private waiting = new Map<number, (v: unknown) => void>();
  private constructor(private ws: WebSocket) {
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
      if (m.id && this.waiting.has(m.id)) {
        this.waiting.get(m.id)!(
          m.error ? Promise.reject(new Error(JSON.stringify(m.error))) : m.result,
        );
        this.waiting.delete(m.id);
      }
    });
  }
  static async open(port: number): Promise<Cdp> {
    const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
      webSocketDebuggerUrl: string;
    }>;
    const ws = new WebSocket(list[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve);
      ws.addEventListener('error', reject);
    });
    return new Cdp(ws);
  }
  post<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve) => this.waiting.set(id, resolve as (v: unknown) => void));
  }
  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.post<{ result: { value: T } }>('Runtime.evaluate', {
      expression,
      returnByValue: true,
    });
    return r.result.value;
  }
  close() {
    this.ws.close();
  }
}

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocNode[];
}

/** Bytes allocated per completion, by function: self, and inclusive (the function or its callees). */
function summariseAllocations(head: AllocNode, completions: number): string[] {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocNode, path: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    const here = [...path, key];
    total += node.selfSize;
    self.set(key, (self.get(key) ?? 0) + node.selfSize);
    for (const k of new Set(here)) inclusive.set(k, (inclusive.get(k) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, here);
  };
  walk(head, []);
  const kb = (b: number) => (b / completions / 1024).toFixed(2).padStart(7);
  const lines = [`  allocated ${kb(total)} kB per completion`, '  self:'];
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    lines.push(`  ${kb(v)} kB  ${k}`);
  lines.push('  inclusive:');
  for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    lines.push(`  ${kb(v)} kB  ${k}`);
  return lines;
}

/** Self time by category and by function, in µs per completion. */
function summarise(profile: Profile, completions: number): string[] {
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    let cat: string;
    if (functionName.startsWith('(')) cat = functionName;
    else if (url.startsWith('wasm://') || /^\$|^js-to-wasm|^wasm-to-js/.test(functionName))
      cat = 'wasm (PGlite)';
    else if (url.includes('/node_modules/')) {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(
        url.slice(url.lastIndexOf('/node_modules/')),
      );
      cat = m![1]!;
    } else if (url.includes('/dist/'))
      cat =
        'ours ' +
        url
          .slice(url.indexOf('/dist/') + 6)
          .split('/')
          .slice(0, 3)
          .join('/');
    else if (url.startsWith('node:')) cat = 'node:' + url.slice(5).split('/')[1];
    else cat = url || '(native)';
    cats.set(cat, (cats.get(cat) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const per = (us: number) => (us / completions).toFixed(1).padStart(7);
  const lines = [`  busy ${per(total)} µs per completion (idle ${per(idle)})`];
  for (const [k, v] of [...cats].sort((a, b) => b[1] - a[1]).slice(0, 25))
    lines.push(`  ${per(v)} µs ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  lines.push('  top functions (self):');
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    lines.push(`  ${per(v)} µs  ${k}`);
  return lines;
}

const GC_OBSERVER = `(() => {
  const { PerformanceObserver } = process.getBuiltinModule('node:perf_hooks');
  const { constants } = process.getBuiltinModule('node:perf_hooks');
  globalThis.__benchGc = { minor: 0, major: 0, other: 0, minorMs: 0, majorMs: 0, otherMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const g = globalThis.__benchGc;
      const k = e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'minor'
        : e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : 'other';
      g[k]++; g[k + 'Ms'] += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return true;
})()`;

await ensureNpmBuild();
const port = await freePort();
const [base] = variants(process.env.PROFILE_VARIANT ? `v:${process.env.PROFILE_VARIANT}` : '');
const variant = process.env.PROFILE_VARIANT
  ? variants(`v:${process.env.PROFILE_VARIANT}`)[1]!
  : base!;
const PERF = process.env.PROFILE_PERF === '1';
const ALLOC = process.env.PROFILE_ALLOC === '1';
variant.execArgv = [
  ...variant.execArgv,
  `--inspect=127.0.0.1:${port}`,
  ...(PERF ? ['--perf-basic-prof'] : []),
];
const driver = await Driver.start(8);
let served: Served | undefined;
try {
  served = await startServed(variant);
  const pid = served.child.pid!;
  const repeatWallets = Array.from({ length: 40 }, () => newWallet());
  await driver.round(served.url, await signOfficial(repeatWallets, served.required, 40), BODY);
  for (let done = 0; done < WARMUP; done += 600) {
    await driver.round(served.url, await signOfficial(repeatWallets, served.required, 600), BODY);
    const fresh = Array.from({ length: 600 }, () => newWallet());
    await driver.round(served.url, await signOfficial(fresh, served.required, 600), BODY);
  }
  const cdp = await Cdp.open(port);
  await cdp.evaluate(GC_OBSERVER);
  await cdp.post('Profiler.enable');
  await cdp.post('Profiler.setSamplingInterval', { interval: 200 });
  for (const kind of ['repeat', 'first-time'] as const) {
    const wallets =
      kind === 'repeat' ? repeatWallets : Array.from({ length: N }, () => newWallet());
    const headers = await signOfficial(wallets, served.required, N);
    await cdp.evaluate(
      `Object.keys(globalThis.__benchGc).forEach((k) => (globalThis.__benchGc[k] = 0))`,
    );
    const cpu0 = cpuMsOfPid(pid);
    const perfFile = path.join(DIR, `served-${kind}.perf`);
    const perf = PERF
      ? spawn('perf', ['record', '-F', '997', '-g', '-p', String(pid), '-o', perfFile], {
          stdio: 'ignore',
        })
      : undefined;
    if (perf) await new Promise((r) => setTimeout(r, 500));
    // perf alone (V8's own sampler, its thread and its signals, would be in perf's samples)
    const sampler = perf || ALLOC ? undefined : 'cpu';
    if (sampler) await cdp.post('Profiler.start');
    if (ALLOC)
      await cdp.post('HeapProfiler.startSampling', {
        samplingInterval: 512,
        includeObjectsCollectedByMajorGC: true,
        // PROFILE_ALLOC=survivors: only what outlived the scavenger (promoted to the old space)
        includeObjectsCollectedByMinorGC: process.env.PROFILE_ALLOC_SURVIVORS !== '1',
      });
    const r = await driver.round(served.url, headers, BODY);
    const allocations = ALLOC
      ? (await cdp.post<{ profile: { head: AllocNode } }>('HeapProfiler.stopSampling')).profile
      : undefined;
    const { profile } = !sampler
      ? { profile: { nodes: [], samples: [], timeDeltas: [] } as Profile }
      : await cdp.post<{ profile: Profile }>('Profiler.stop');
    if (perf) {
      const exited = new Promise((r) => perf.once('exit', r));
      perf.kill('SIGINT');
      await exited;
    }
    const cpu = (cpuMsOfPid(pid) - cpu0) / N;
    const gc = await cdp.evaluate<Record<string, number>>('globalThis.__benchGc');
    const file = path.join(DIR, `served-${kind}.cpuprofile`);
    if (sampler) writeFileSync(file, JSON.stringify(profile));
    console.log(
      `${kind}: ${N} completions, ${Math.round(r.perSecond)}/s, failures ${r.failures}, process CPU ${cpu.toFixed(3)} ms per completion (profiler on); ` +
        `GC per completion: ${(gc.minor! / N).toFixed(3)} minor (${((1000 * gc.minorMs!) / N).toFixed(1)} µs), ` +
        `${(gc.major! / N).toFixed(4)} major (${((1000 * gc.majorMs!) / N).toFixed(1)} µs), other ${((1000 * gc.otherMs!) / N).toFixed(1)} µs; ${file}`,
    );
    if (sampler) console.log(summarise(profile, N).join('\n'));
    if (allocations) console.log(summariseAllocations(allocations.head, N).join('\n'));
  }
  cdp.close();
} finally {
  driver.stop();
  if (served) await stop(served.child);
}
process.exit(0);
