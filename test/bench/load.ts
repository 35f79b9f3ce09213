import { fork, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { PaymentRequired } from '@x402/core/types';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { servedNode } from '../helpers/served-node.js';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

export interface Round {
  perSecond: number;
  /** This process's CPU per request (ms): the server's own cost, less sensitive to other load. */
  cpuMs: number;
  /** Of `cpuMs`, the part spent in the kernel (system time), when the bench reads it. */
  systemCpuMs?: number;
  failures: number;
  /** Answers by HTTP status (a failure's kind at a glance). */
  statuses?: Record<number, number>;
}

/** HTTP load from a child process (./payments-driver.ts), measured from this (the server) process. */
export class Driver {
  private constructor(
    private readonly child: ChildProcess,
    private readonly concurrency: number,
  ) {}

  static async start(concurrency: number): Promise<Driver> {
    const file = fileURLToPath(new URL('./payments-driver.ts', import.meta.url));
    const child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('error', reject);
    });
    return new Driver(child, concurrency);
  }

  /** POSTs one request per signed header to `url`. */
  round(url: string, headers: string[], body?: string): Promise<Round> {
    return this.run({ url, headers, body }, headers.length);
  }

  /** GETs every URL. */
  gets(urls: string[]): Promise<Round> {
    return this.run({ urls }, urls.length);
  }

  /**
   * A job as ./payments-driver.ts takes it (`targets`: POSTs in turn to each; `latencies`: every
   * request's milliseconds back), answered as it is, at this driver's concurrency unless set.
   */
  async job(job: {
    targets?: string[];
    headers?: string[];
    body?: string;
    urls?: string[];
    concurrency?: number;
    latencies?: boolean;
    rate?: number;
  }): Promise<{
    seconds: number;
    failures: number;
    statuses: Record<number, number>;
    latencies?: number[];
  }> {
    type Reply = Awaited<ReturnType<Driver['job']>> & { error?: string };
    const reply = await new Promise<Reply>((resolve) => {
      this.child.once('message', (m) => resolve(m as Reply));
      this.child.send({ concurrency: this.concurrency, ...job });
    });
    if (reply.error) throw new Error(`load driver: ${reply.error}`);
    return reply;
  }

  private async run(job: object, n: number): Promise<Round> {
    const cpu = process.cpuUsage();
    const started = performance.now();
    type Reply = {
      seconds: number;
      failures: number;
      statuses: Record<number, number>;
      error?: string;
    };
    const reply = await new Promise<Reply>((resolve) => {
      this.child.once('message', (m) => resolve(m as Reply));
      this.child.send({ ...job, concurrency: this.concurrency });
    });
    if (reply.error) throw new Error(`load driver: ${reply.error}`);
    const seconds = (performance.now() - started) / 1000;
    return {
      perSecond: n / seconds,
      cpuMs: cpuMs(process.cpuUsage(cpu)) / n,
      failures: reply.failures,
      statuses: reply.statuses,
    };
  }

  stop(): void {
    this.child.send('exit');
  }
}

/**
 * `npm run bench -- load`: the service under load as an operator would run it: the built entry
 * (`node dist/src/main.js`) in a child process on a data directory on disk holding the demo
 * catalogue, loopback only.
 * 1. BENCH_LOAD_CONNECTIONS (200) keep-alive connections for BENCH_LOAD_SECONDS (60) on a mix of
 *    search (2/5), detail (2/5) and health (1/5): requests per second, p50/p99 of each route and
 *    their ratio to the health route's in the same run, non-2xx and 5xx counts.
 * 2. BENCH_LOAD_BUYERS (50) wallets buy at once through the x402 handshake (402 prompt, EIP-3009
 *    signature, paid retry): purchases per second, p50/p99 of each step, non-2xx answers.
 * The server's resident memory is sampled throughout; VmHWM (its peak) is read at the end. The
 * first start (initdb and the demo listings) is a process of its own, so that its peak does not
 * hide the peak under load.
 */
export async function benchLoad(env = process.env): Promise<Record<string, unknown>> {
  const seconds = Number(env.BENCH_LOAD_SECONDS ?? 60);
  const connections = Number(env.BENCH_LOAD_CONNECTIONS ?? 200);
  const buyers = Number(env.BENCH_LOAD_BUYERS ?? 50);
  const { ensureBuilt, ROOT } = await import('../helpers/build.js');
  await ensureBuilt();
  cpSync(path.join(ROOT, 'assets'), path.join(ROOT, 'dist/assets'), { recursive: true });
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-load-'));
  try {
    const seeded = await Server.start(ROOT, dataDir, 'demo');
    const firstStart = { ...seeded.memory(), startMs: seeded.startMs };
    await seeded.stop();
    const server = await Server.start(ROOT, dataDir, 'serve');
    try {
      const startMs = server.startMs;
      const mix = await mixedLoad(server, seconds, connections);
      const afterMix = server.memory();
      const purchases = await purchaseRush(server, buyers);
      const report = {
        // 1-minute load average of the machine before and after (other processes included)
        loadavg: { before: round(loadBefore[0]!), after: round(loadavg()[0]!) },
        firstStart,
        restartMs: startMs,
        mixed: mix,
        purchases,
        memory: { afterMixedRssMb: afterMix.peakSampledMb, ...server.memory() },
      };
      console.log(JSON.stringify(report, null, 2));
      return report;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The service's built entry in a child process, with its memory sampled from /proc. */
class Server {
  private peakRssKb = 0;
  private readonly sampler: NodeJS.Timeout;

  private constructor(
    private readonly child: ChildProcess,
    readonly base: string,
    readonly startMs: number,
  ) {
    this.sampler = setInterval(() => this.sample(), 200);
  }

  static async start(root: string, dataDir: string, command: 'demo' | 'serve'): Promise<Server> {
    const { base, env } = await loopbackServiceEnv(dataDir, 'warn');
    const started = performance.now();
    // as `npm start` runs it: its node flags and environment
    const served = servedNode(root);
    const child = spawn(
      process.execPath,
      [...served.execArgv, path.join(root, 'dist/src/main.js'), command],
      { env: { ...env, ...served.env }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
      const ok = await fetch(`${base}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('server not healthy within 300 s');
      await sleep(50);
    }
    return new Server(child, base, Math.round(performance.now() - started));
  }

  private status(): string {
    return readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
  }

  private sample(): void {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(this.status())?.[1] ?? 0);
      this.peakRssKb = Math.max(this.peakRssKb, kb);
    } catch {
      // exited
    }
  }

  /** Peak resident memory: the kernel's VmHWM, and the highest of the samples since the last call. */
  memory(): { vmHwmMb: number; peakSampledMb: number } {
    this.sample();
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(this.status())?.[1] ?? 0);
    const out = {
      vmHwmMb: Math.round(hwm / 1024),
      peakSampledMb: Math.round(this.peakRssKb / 1024),
    };
    this.peakRssKb = 0;
    return out;
  }

  async stop(): Promise<void> {
    clearInterval(this.sampler);
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

interface Sample {
  status: number;
  ms: number;
}

/** One GET or POST over a shared keep-alive agent; status 0 when the request failed. */
function timed(
  agent: Agent,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Sample & { headers: Record<string, string | string[] | undefined>; body: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', agent, headers: init.headers, timeout: 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () => resolve({ status: 0, ms: 0, headers: {}, body: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () =>
      resolve({ status: 0, ms: performance.now() - started, headers: {}, body: '' }),
    );
    req.end(init.body);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function summarize(samples: Sample[], seconds: number) {
  const ok = samples.filter((s) => s.status >= 200 && s.status < 300).map((s) => s.ms);
  ok.sort((a, b) => a - b);
  return {
    requests: samples.length,
    perSecond: round(samples.length / seconds, 1),
    p50Ms: round(percentile(ok, 0.5)),
    p99Ms: round(percentile(ok, 0.99)),
    non2xx: samples.filter((s) => s.status < 200 || s.status >= 300).length,
    status5xx: samples.filter((s) => s.status >= 500).length,
    failed: samples.filter((s) => s.status === 0).length,
  };
}

/** Everyday buyer queries the load benches search with. */
export const SEARCHES = [
  'parse csv files in python',
  'rest api with authentication',
  'rate limiter middleware',
  'markdown to html converter',
  'log anomaly detection',
  'react form validation',
  'command line todo app',
  'image resize service',
];

async function mixedLoad(server: Server, seconds: number, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const ids = await catalogueIds(server);
  const routes = {
    search: [] as Sample[],
    detail: [] as Sample[],
    health: [] as Sample[],
  };
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const kind = (['search', 'detail', 'search', 'detail', 'health'] as const)[i % 5]!;
        const url =
          kind === 'search'
            ? `${server.base}/api/v1/search?q=${encodeURIComponent(SEARCHES[i % SEARCHES.length]!)}`
            : kind === 'detail'
              ? `${server.base}/api/v1/items/${ids[i % ids.length]}`
              : `${server.base}/api/v1/health`;
        const { status, ms } = await timed(agent, url);
        routes[kind].push({ status, ms });
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  agent.destroy();
  const health = summarize(routes.health, wall);
  const vsHealth = (s: ReturnType<typeof summarize>) => ({
    ...s,
    p50VsHealth: round(s.p50Ms / health.p50Ms),
    p99VsHealth: round(s.p99Ms / health.p99Ms),
  });
  const all = [...routes.search, ...routes.detail, ...routes.health];
  return {
    seconds: round(wall, 1),
    connections,
    total: summarize(all, wall),
    search: vsHealth(summarize(routes.search, wall)),
    detail: vsHealth(summarize(routes.detail, wall)),
    health,
  };
}

/** Ids of purchasable listings (at most the dev ledger's start balance), from the search route. */
async function catalogueIds(server: Server): Promise<string[]> {
  const ids = new Set<string>();
  for (const q of SEARCHES) {
    const res = await fetch(`${server.base}/api/v1/search?q=${encodeURIComponent(q)}&max_price=50`);
    for (const item of (await res.json()) as Array<{ id: string }>) ids.add(item.id);
  }
  if (!ids.size) throw new Error('the demo catalogue is empty');
  return [...ids];
}

async function purchaseRush(server: Server, buyers: number) {
  const { newWallet, signPayment } = await import('../helpers/wallets.js');
  const agent = new Agent({ keepAlive: true, maxSockets: buyers });
  const ids = await catalogueIds(server);
  const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
  const headers = { 'content-type': 'application/json' };
  const prompts: Sample[] = [];
  const paid: Sample[] = [];
  const orders = new Set<string>();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: buyers }, async (_, i) => {
      const wallet = newWallet();
      const url = `${server.base}/api/v1/items/${ids[i % ids.length]}/acquire`;
      const prompt = await timed(agent, url, { method: 'POST', headers, body });
      // the prompt is a 402 by design: it counts as answered
      prompts.push({ status: prompt.status === 402 ? 200 : prompt.status, ms: prompt.ms });
      if (prompt.status !== 402) return;
      const required = JSON.parse(
        Buffer.from(String(prompt.headers['payment-required']), 'base64').toString('utf8'),
      ) as PaymentRequired;
      const { header } = await signPayment(wallet, required, required.accepts[0]!);
      const res = await timed(agent, url, {
        method: 'POST',
        headers: { ...headers, 'payment-signature': header },
        body,
      });
      paid.push({ status: res.status, ms: res.ms });
      if (res.status === 200) orders.add((JSON.parse(res.body) as { order_id: string }).order_id);
    }),
  );
  const wall = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    buyers,
    seconds: round(wall, 2),
    purchasesPerSecond: round(orders.size / wall, 1),
    distinctOrders: orders.size,
    prompt: summarize(prompts, wall),
    paid: summarize(paid, wall),
  };
}
