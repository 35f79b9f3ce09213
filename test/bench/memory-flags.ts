import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentRequired } from '@x402/core/types';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { servedNode, type ServedNode } from '../helpers/served-node.js';
import { newWallet, signPayment } from '../helpers/wallets.js';
import { Driver, median, SEARCHES as QUERIES } from './load.js';

/**
 * `npm run bench -- memory_flags`: what the memory settings of `npm start` (node flags and
 * environment, ../helpers/served-node.ts) cost. The built entry runs `demo` twice at once, on a
 * data directory each: as `npm start` runs it and as plain `node dist/src/main.js`. Each idles,
 * then interleaved rounds (the order rotates) send each the same work from a load-driver process:
 * BENCH_FLAGS_SEARCHES (300) searches and BENCH_FLAGS_PURCHASES (40) paid purchases (each a new
 * wallet, the EIP-3009 signature made beforehand), 20 at a time. Reported per variant: idle
 * resident memory, its peak (VmHWM) through the rounds, requests per second and the server
 * process's CPU per request (from /proc, immune to waiting for a core); and each against plain node.
 *
 * BENCH_MEMORY_VARIANTS adds candidates to the same rounds: `name:NAME=value --flag;name2:--flag`.
 */
const ROUNDS = Number(process.env.BENCH_FLAGS_ROUNDS ?? 5);
const SEARCHES = Number(process.env.BENCH_FLAGS_SEARCHES ?? 300);
const PURCHASES = Number(process.env.BENCH_FLAGS_PURCHASES ?? 40);
const CONCURRENCY = 20;
const IDLE_MS = 5000;

interface Variant extends ServedNode {
  name: string;
}

function extraVariants(spec = process.env.BENCH_MEMORY_VARIANTS ?? ''): Variant[] {
  return spec
    .split(';')
    .filter((s) => s.trim())
    .map((s) => {
      const [name, words = ''] = s.split(/:(.*)/s);
      const v: Variant = { name: name!.trim(), env: {}, execArgv: [] };
      for (const w of words.trim().split(/\s+/).filter(Boolean)) {
        if (w.startsWith('--')) v.execArgv.push(w);
        else {
          const [k, ...rest] = w.split('=');
          v.env[k!] = rest.join('=');
        }
      }
      return v;
    });
}

const statusKb = (pid: number, field: string) =>
  Number(
    new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0,
  );
/** CPU time (user + system) of one process so far, ms. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000; // USER_HZ 100
}

interface Server {
  variant: Variant;
  child: ChildProcess;
  base: string;
  dataDir: string;
  idleRssMb: number;
  idlePeakMb: number;
  itemUrl: string;
  required: PaymentRequired;
}

async function startDemo(variant: Variant): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-flags-'));
  const { base, env } = await loopbackServiceEnv(dataDir, 'warn');
  const child = spawn(
    process.execPath,
    [...variant.execArgv, path.join(ROOT, 'dist/src/main.js'), 'demo'],
    { env: { ...env, ...variant.env }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
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
  await sleep(IDLE_MS);
  const idleRssMb = Math.round(statusKb(child.pid!, 'VmRSS') / 1024);
  const idlePeakMb = Math.round(statusKb(child.pid!, 'VmHWM') / 1024);
  // a purchasable listing (at most the dev ledger's start balance) and its payment prompt
  const items = (await (await fetch(`${base}/api/v1/search?q=api&max_price=50`)).json()) as Array<{
    id: string;
  }>;
  if (!items.length) throw new Error(`${variant.name}: the demo catalogue is empty`);
  const itemUrl = `${base}/api/v1/items/${items[0]!.id}/acquire`;
  const prompt = await fetch(itemUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: PURCHASE_BODY,
  });
  if (prompt.status !== 402) throw new Error(`${variant.name}: acquire prompt ${prompt.status}`);
  const required = JSON.parse(
    Buffer.from(prompt.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
  return { variant, child, base, dataDir, idleRssMb, idlePeakMb, itemUrl, required };
}

const PURCHASE_BODY = JSON.stringify({ policy_accepted: true, license_accepted: true });

interface Sample {
  perSecond: number;
  cpuMs: number;
  failures: number;
}

async function measured(
  server: Server,
  n: number,
  run: () => Promise<{ perSecond: number; failures: number }>,
): Promise<Sample> {
  const cpu = cpuMsOf(server.child.pid!);
  const r = await run();
  return {
    perSecond: r.perSecond,
    cpuMs: (cpuMsOf(server.child.pid!) - cpu) / n,
    failures: r.failures,
  };
}

export async function benchMemoryFlags(): Promise<Record<string, unknown>> {
  await ensureBuilt();
  const variants: Variant[] = [
    { name: 'plain node', env: {}, execArgv: [] },
    { name: 'npm start', ...servedNode() },
    ...extraVariants(),
  ];
  const loadBefore = loadavg()[0]!;
  const servers: Server[] = [];
  const driver = await Driver.start(CONCURRENCY);
  try {
    for (const v of variants) servers.push(await startDemo(v));
    const searches = servers.map((s) =>
      Array.from(
        { length: SEARCHES },
        (_, i) => `${s.base}/api/v1/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}`,
      ),
    );
    const signed = async (s: Server) =>
      Promise.all(
        Array.from({ length: PURCHASES }, async () => {
          const accepted = s.required.accepts[0]!;
          return (await signPayment(newWallet(), s.required, accepted)).header;
        }),
      );
    // warm-up: JIT, plans, caches
    for (const [i, s] of servers.entries()) {
      await driver.gets(searches[i]!.slice(0, 60));
      await driver.round(s.itemUrl, await signed(s), PURCHASE_BODY);
    }
    const search = servers.map(() => [] as Sample[]);
    const purchase = servers.map(() => [] as Sample[]);
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < servers.length; k++) {
        const i = (k + r) % servers.length;
        const s = servers[i]!;
        search[i]!.push(await measured(s, SEARCHES, () => driver.gets(searches[i]!)));
        const headers = await signed(s);
        purchase[i]!.push(
          await measured(s, PURCHASES, () => driver.round(s.itemUrl, headers, PURCHASE_BODY)),
        );
      }
    }
    const med = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
    const base = { search: search[0]!, purchase: purchase[0]! };
    const rows = servers.map((s, i) => {
      const row = {
        variant: s.variant.name,
        env: s.variant.env,
        node_flags: s.variant.execArgv.join(' '),
        idle_rss_mb: s.idleRssMb,
        idle_peak_mb: s.idlePeakMb,
        peak_mb_through_rounds: Math.round(statusKb(s.child.pid!, 'VmHWM') / 1024),
        search_per_second: Math.round(med(search[i]!, 'perSecond')),
        search_cpu_ms: Number(med(search[i]!, 'cpuMs').toFixed(2)),
        purchase_per_second: Math.round(med(purchase[i]!, 'perSecond')),
        purchase_cpu_ms: Number(med(purchase[i]!, 'cpuMs').toFixed(2)),
        failures: [...search[i]!, ...purchase[i]!].reduce((n, x) => n + x.failures, 0),
        // per round against plain node in the same round, then the median
        search_cpu_vs_plain: Number(
          median(search[i]!.map((x, r) => x.cpuMs / base.search[r]!.cpuMs)).toFixed(3),
        ),
        purchase_cpu_vs_plain: Number(
          median(purchase[i]!.map((x, r) => x.cpuMs / base.purchase[r]!.cpuMs)).toFixed(3),
        ),
        search_rate_vs_plain: Number(
          median(search[i]!.map((x, r) => x.perSecond / base.search[r]!.perSecond)).toFixed(3),
        ),
        purchase_rate_vs_plain: Number(
          median(purchase[i]!.map((x, r) => x.perSecond / base.purchase[r]!.perSecond)).toFixed(3),
        ),
      };
      return row;
    });
    const result = {
      rounds: ROUNDS,
      searches: SEARCHES,
      purchases: PURCHASES,
      loadavg: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0]!.toFixed(2)) },
      variants: rows,
    };
    console.log(
      [
        `memory settings of npm start vs plain node (demo, ${ROUNDS} interleaved rounds of ${SEARCHES} searches and ${PURCHASES} purchases, ${CONCURRENCY} at a time; load ${result.loadavg.before} -> ${result.loadavg.after}):`,
        ...rows.map(
          (x) =>
            `  ${x.variant.padEnd(14)} idle ${x.idle_rss_mb} MB (peak ${x.idle_peak_mb}; ${x.peak_mb_through_rounds} through the rounds); ` +
            `search ${x.search_per_second}/s ${x.search_cpu_ms} ms CPU (×${x.search_cpu_vs_plain}); ` +
            `purchase ${x.purchase_per_second}/s ${x.purchase_cpu_ms} ms CPU (×${x.purchase_cpu_vs_plain}); failures ${x.failures}` +
            (x.node_flags || Object.keys(x.env).length
              ? `\n      ${Object.entries(x.env)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(' ')} ${x.node_flags}`.trimEnd()
              : ''),
        ),
      ].join('\n'),
    );
    return result;
  } finally {
    driver.stop();
    for (const s of servers) {
      if (s.child.exitCode === null) {
        const gone = new Promise((r) => s.child.once('exit', r));
        s.child.kill('SIGTERM');
        await gone;
      }
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}
