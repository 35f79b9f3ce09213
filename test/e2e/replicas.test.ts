import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { PaymentRequired } from '@x402/core/types';
import postgres from 'postgres';
import type { LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { freePort } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import {
  freshDatabase,
  ON_POSTGRES,
  PG_TEST_ADMIN_TOKEN,
  PG_TEST_ATTESTATION_KEY,
  PG_TEST_SIGNING_SECRET,
} from '../helpers/postgres.js';
import { startS3 } from '../helpers/s3.js';
import { METADATA, uploadRequest } from '../helpers/selling.js';
import { chainObserverCopy, newWallet, signPayment } from '../helpers/wallets.js';

/**
 * The scaled-out deployment (docs/deploying.md): two service replicas with IN_PROCESS_WORKER=false
 * behind one public address, two worker processes, one Postgres and an S3-compatible store, every
 * process from source as `npm run dev` / `dev:worker` start it. Postgres tier only: the embedded
 * database belongs to one process, so this shape exists only on a server.
 */
const run = promisify(execFile);
const JSON_HEADERS = { 'content-type': 'application/json' };

/** One process of the deployment, its JSON log lines kept. */
class Proc {
  out = '';
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
  constructor(
    readonly role: 'serve' | 'worker',
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', role], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((r) => this.child.once('exit', r));
  }
  logs(): Array<Record<string, unknown>> {
    return this.out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  async until(msg: string | RegExp, seconds = 120): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    while (!this.logs().some((l) => String(l.msg).match(msg))) {
      if (this.child.exitCode !== null)
        throw new Error(`${this.role} exited: ${this.out.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`${this.role}: no "${msg}" in ${seconds} s`);
      await sleep(50);
    }
  }
  async kill(signal: NodeJS.Signals = 'SIGTERM') {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

const procs: Proc[] = [];
let s3: Awaited<ReturnType<typeof startS3>>;
let sql: postgres.Sql;
let common: Record<string, string>;
const replicas: Array<{ proc: Proc; base: string }> = [];
const workers: Proc[] = [];

function startWorker(): Proc {
  const w = new Proc('worker', common);
  procs.push(w);
  return w;
}

describe.runIf(ON_POSTGRES)('two replicas and two workers on one Postgres and S3', () => {
  beforeAll(async () => {
    const databaseUrl = await freshDatabase({ empty: true });
    sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    s3 = await startS3();
    common = {
      DATABASE_URL: databaseUrl,
      URL_SIGNING_SECRET: PG_TEST_SIGNING_SECRET,
      ADMIN_TOKEN: PG_TEST_ADMIN_TOKEN,
      ATTESTATION_PRIVATE_KEY: PG_TEST_ATTESTATION_KEY,
      ...s3.env,
      // the one address clients use (a load balancer's in a deployment)
      PUBLIC_BASE_URL: 'http://marketplace.test',
      LOG_LEVEL: 'info',
      WORKER_POLL_MS: '100',
      SCAN_LEASE_SECONDS: '5',
      SCAN_RETRY_BASE_MS: '0',
    };
    // all four at once on an empty database: each of them migrates at start
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = new Proc('serve', {
        ...common,
        IN_PROCESS_WORKER: 'false',
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      procs.push(proc);
      replicas.push({ proc, base: `http://127.0.0.1:${port}` });
    }
    workers.push(startWorker(), startWorker());
    await Promise.all([
      ...replicas.map((r) => r.proc.until(/^marketplace ready/)),
      ...workers.map((w) => w.until('worker started')),
    ]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sql?.end();
    await s3?.close();
  });

  it('all four started at once and each migration was applied exactly once', async () => {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    const rows = await sql<{ name: string }[]>`select name from schema_migrations order by name`;
    expect(rows.map((r) => r.name)).toEqual(files);
    // the applied lists the processes logged: together every file, none twice
    const applied = procs
      .flatMap((p) => p.logs())
      .filter((l) => l.msg === 'migrations applied')
      .flatMap((l) => l.applied as string[]);
    expect(applied.sort()).toEqual(files);
  });

  it('a listing uploaded through one replica is scanned by a worker and found through the other', async () => {
    const [a, b] = replicas;
    const seller = newWallet();
    const title = `Replica widget ${Date.now().toString(36)}`;
    const itemId = await listThrough(a!.base, seller, title);
    await until('the listing is active', async () => (await itemStatus(itemId)) === 'active');
    const found = (await (
      await fetch(`${b!.base}/api/v1/search?q=${encodeURIComponent(title)}`)
    ).json()) as Array<{ item_id?: string; id?: string; metadata: { title: string } }>;
    expect(found.map((r) => r.metadata.title)).toContain(title);
  });

  it('the same signed purchase sent to both replicas at once settles once and yields one order', async () => {
    const [a, b] = replicas;
    const itemId = await activeItem(a!.base, newWallet());
    const buyer = newWallet();
    const body = JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true });
    const path = `/api/v1/items/${itemId}/acquire`;
    const prompt = promptOf(
      await fetch(`${a!.base}${path}`, { method: 'POST', headers: JSON_HEADERS, body }),
    );
    // as our client signs: with a payment identifier, so the buyer's own copies get the links
    const signed = await signPayment(buyer, prompt, prompt.accepts[0]!, {
      paymentId: `pay_${crypto.randomUUID()}`,
    });
    const send = (base: string, header = signed.header) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'payment-signature': header },
        body,
      });
    const answers = await Promise.all([send(a!.base), send(b!.base)]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{
      order_id?: string;
      download_url?: string;
    }>;
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(bodies[0]!.order_id).toBeDefined();
    expect(bodies[1]!.order_id).toBe(bodies[0]!.order_id);
    // the authorization as the chain shows it, on the other replica: the order named, no link
    const copy = await send(b!.base, chainObserverCopy(signed.payload));
    expect(copy.status).toBe(402);
    const named = (await copy.json()) as { order_id?: string; download_url?: string };
    expect(named.order_id).toBe(bodies[0]!.order_id);
    expect(named.download_url).toBeUndefined();
    const orders = await sql`select id from orders where item_id = ${itemId}`;
    expect(orders).toHaveLength(1);
    const payments = await sql`select id from x402_payments where nonce = ${signed.nonce}`;
    expect(payments).toHaveLength(1);
    const transfers = await sql`select 1 from dev_ledger_transfers where nonce = ${signed.nonce}`;
    expect(transfers).toHaveLength(1);
  });

  it("a seller's change of sales chains and a deletion reach the other replica's prompt at once", async () => {
    const [a, b] = replicas;
    const seller = newWallet();
    const itemId = await activeItem(a!.base, seller);
    const chainsAt = async (base: string) => {
      const res = await fetch(`${base}/api/v1/items/${itemId}/acquire`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ policy_accepted: true, license_accepted: true }),
      });
      if (res.status === 404) return 'gone';
      return promptOf(res)
        .accepts.map((x) => x.network)
        .sort()
        .join(',');
    };
    const before = await chainsAt(b!.base); // now in replica B's prompt cache (30 s TTL)
    expect(before.split(',')).toHaveLength(2);
    const set = await callAs(a!.base, seller, 'PUT', '/api/v1/agent/sales-chains', {
      sales_chains: ['polygon'],
    });
    expect(set.status).toBe(200);
    // at once: within a second (the notice's trip), where the cache alone took 30 s
    await until('B prompts for polygon only', async () => (await chainsAt(b!.base)) !== before, 1);
    expect((await chainsAt(b!.base)).split(',')).toHaveLength(1);
    const deleted = await callAs(a!.base, seller, 'DELETE', `/api/v1/items/${itemId}`);
    expect(deleted.status).toBe(200);
    await until('B no longer sells it', async () => (await chainsAt(b!.base)) === 'gone', 1);
  });

  it('two workers never run one scan twice', async () => {
    const seller = newWallet();
    const ids = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        listThrough(replicas[i % 2]!.base, seller, `Parallel scan ${i} ${Date.now().toString(36)}`),
      ),
    );
    await until('every listing is active', async () => {
      const states = await Promise.all(ids.map(itemStatus));
      return states.every((s) => s === 'active');
    });
    const jobs = await sql<{ attempts: number; state: string }[]>`
      select attempts, state from jobs where payload->>'item_id' = any(${ids})`;
    expect(jobs).toHaveLength(ids.length);
    for (const j of jobs) expect(j).toEqual({ attempts: 1, state: 'done' });
    // each scan logged once, by one of the workers (log lines arrive a little after the rows)
    const scans = () =>
      workers
        .flatMap((w) => w.logs())
        .filter((l) => l.msg === 'scan passed; item active' && ids.includes(l.itemId as string));
    await until('every scan is logged', async () => scans().length >= ids.length, 10);
    await sleep(200);
    expect(
      scans()
        .map((l) => l.itemId)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('the operator commands run against the live database while the replicas serve', async () => {
    const env = { ...process.env, ...common, LOG_LEVEL: 'silent' };
    const serving = (async () => {
      let answered = 0;
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${replicas[i % 2]!.base}/api/v1/search?q=widget`);
        expect(res.status).toBe(200);
        answered++;
      }
      return answered;
    })();
    for (const args of [['migrate'], ['moderate'], ['unresolved-payments'], ['reindex']]) {
      const res = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
        env,
      });
      expect(res.stderr).not.toMatch(/error/i);
    }
    expect(await serving).toBe(20);
    for (const r of replicas) {
      expect((await fetch(`${r.base}/api/v1/health`)).status).toBe(200);
    }
  });

  it('a worker killed mid-scan: the other finishes the scan', async () => {
    // one worker at a time, so that the kill hits the one that holds the scan
    const [first, second] = workers;
    second!.child.kill('SIGSTOP');
    try {
      for (let attempt = 0; ; attempt++) {
        const itemId = await listThrough(replicas[0]!.base, newWallet(), `Big scan ${attempt}`, {
          big: true,
        });
        const seen = await waitFor(async () => {
          const [job] = await sql<{ state: string }[]>`
            select state from jobs where payload->>'item_id' = ${itemId}`;
          return job && job.state !== 'queued' ? job.state : undefined;
        });
        if (seen !== 'running') {
          // the scan ended before the kill could reach it: try a bigger one
          expect(attempt).toBeLessThan(3);
          continue;
        }
        await first!.kill('SIGKILL');
        break;
      }
    } finally {
      second!.child.kill('SIGCONT');
    }
    // its lease runs out (5 s) and the other worker takes the scan up
    await until('the other worker finished the scan', async () => {
      const rows = await sql<{ attempts: number; state: string }[]>`
        select j.attempts, j.state from jobs j join items i on i.id = (j.payload->>'item_id')::uuid
        where i.status = 'active' and j.attempts = 2 and j.state = 'done'`;
      return rows.length === 1;
    });
    expect(second!.logs().some((l) => l.msg === 'scan passed; item active')).toBe(true);
  });

  // --- helpers -----------------------------------------------------------------------------

  async function itemStatus(itemId: string): Promise<string | undefined> {
    const [row] = await sql<{ status: string }[]>`select status from items where id = ${itemId}`;
    return row?.status;
  }

  /** A listing through `base` with its fee paid; its id (scanned later by a worker). */
  async function listThrough(
    base: string,
    seller: LocalAccount,
    title: string,
    opts: { big?: boolean } = {},
  ): Promise<string> {
    const files = uniqueProject();
    if (opts.big) {
      // many files: a scan that takes a while
      for (let i = 0; i < 3000; i++)
        files[`src/gen/m${i}.ts`] = `export const v${i} = ${i}; // ${'x'.repeat(200)}\n`;
    }
    const req = uploadRequest({ bytes: zipOf(files), metadata: { ...METADATA, title } });
    const body = new Uint8Array(req.payload as Buffer);
    const url = `${base}/api/v1/items`;
    const prompt = promptOf(await fetch(url, { method: 'POST', headers: req.headers, body }));
    const { header } = await signPayment(seller, prompt, prompt.accepts[0]!);
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...req.headers, 'payment-signature': header },
      body,
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { item_id: string }).item_id;
  }

  async function activeItem(base: string, seller: LocalAccount): Promise<string> {
    const itemId = await listThrough(base, seller, `Sold widget ${Date.now().toString(36)}`);
    await until('the listing is active', async () => (await itemStatus(itemId)) === 'active');
    return itemId;
  }
});

function promptOf(res: Response): PaymentRequired {
  expect(res.status).toBe(402);
  return JSON.parse(
    Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
}

/** A call as the wallet's agent: the zero-amount x402 proof of the wallet (spec: identity). */
async function callAs(
  base: string,
  wallet: LocalAccount,
  method: string,
  path: string,
  body?: unknown,
) {
  const init = {
    method,
    ...(body !== undefined && { headers: JSON_HEADERS, body: JSON.stringify(body) }),
  };
  const first = await fetch(`${base}${path}`, init);
  if (first.status !== 402) return first;
  const prompt = promptOf(first);
  const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
  return fetch(`${base}${path}`, {
    ...init,
    headers: { ...(body !== undefined && JSON_HEADERS), 'payment-signature': header },
  });
}

async function until(what: string, done: () => Promise<boolean>, seconds = 90): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s: ${what}`);
    await sleep(20);
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, seconds = 90): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`nothing within ${seconds} s`);
    await sleep(10);
  }
}
