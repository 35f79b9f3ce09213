import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentRequired } from '@x402/core/types';
import type { LocalAccount } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createRuntime, reconcileNow, startBackground } from '../../src/runtime.js';
import { freePort } from '../helpers/app.js';
import { freshDataDir } from '../helpers/data-dir.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { startFakeFacilitator } from '../helpers/fake-facilitator.js';
import { startFakeRpc } from '../helpers/fake-rpc.js';
import { captureLogs } from '../helpers/logs.js';
import { hostedMcpAgent } from '../helpers/mcp-hosted-agent.js';
import { uploadRequest } from '../helpers/selling.js';
import type { PausePoint } from '../helpers/service-child.js';
import { newWallet, signPayment } from '../helpers/wallets.js';

/**
 * kill -9 of the service, a process of its own on a data directory on disk, while operations are
 * stopped at their worst moments (test/helpers/service-child.ts): a purchase and a listing fee
 * settled by the facilitator with nothing of the outcome written, a purchase claimed and not yet
 * sent for settlement, an upload half stored, a scan under way. The service then restarts on the
 * same data directory, and a user sees: every paid authorization is exactly one order or listing
 * (the reconciler finishes it; the buyer's retry of the same signed request answers it and charges
 * nothing) or a released claim with nothing charged, no bytes without a listing and no listing
 * without its bytes, and every scan done.
 */

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  // a test that failed before its kill leaves its service running
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface State {
  payments: Array<{ id: string; status: string; nonce: string; operation: string; itemId: string }>;
  orders: Array<{ id: string; itemId: string; paymentId: string }>;
  items: Array<{ id: string; status: string; archiveKey: string }>;
  jobs: Array<{ state: string; itemId: string }>;
  transfers: Array<{ nonce: string; status: string }>;
}

/** The service child: started, armed, paused, inspected and killed by the test. */
interface Service {
  base: string;
  itemId: string;
  arm(point: PausePoint): Promise<void>;
  /** Resolves when an operation stopped at `point` (in the order they stopped). */
  paused(point: PausePoint): Promise<void>;
  state(): Promise<State>;
  kill9(): Promise<void>;
}

async function startService(dataDir: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/service-child.ts'],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_BASE_URL: base,
        LOG_LEVEL: 'warn',
        SEED_ITEM: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const messages: Array<Record<string, unknown>> = [];
  let notify = () => {};
  child.on('message', (m: Record<string, unknown>) => {
    messages.push(m);
    notify();
  });
  const next = async (match: (m: Record<string, unknown>) => boolean) => {
    for (;;) {
      const i = messages.findIndex(match);
      if (i >= 0) return messages.splice(i, 1)[0]!;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`service exited: ${stderr.slice(-2000)}`);
      await new Promise<void>((r) => (notify = r));
    }
  };
  const itemId = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve((JSON.parse(line) as { itemId: string }).itemId);
    });
    child.once('exit', (code) =>
      reject(new Error(`service exited ${code} before ready: ${stderr.slice(-2000)}`)),
    );
  });
  child.once('exit', () => notify());
  return {
    base,
    itemId,
    async arm(point) {
      child.send({ arm: point });
      await next((m) => m.armed === point);
    },
    async paused(point) {
      await next((m) => m.paused === point);
    },
    async state() {
      child.send('state');
      const m = await next((m) => 'state' in m || 'error' in m);
      if (m.error) throw new Error(String(m.error));
      return m.state as State;
    },
    async kill9() {
      const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, s) => r(s)));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    },
  };
}

/** The service restarted on the same data directory and port, in this process. */
async function restart(dataDir: string, base: string, env: Record<string, string> = {}) {
  const logs = captureLogs();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: base,
    LOG_LEVEL: 'info',
    // short periods so that the test need not wait for the defaults (docs/operating.md: After a crash)
    RECONCILE_INTERVAL_SECONDS: '1',
    RECONCILE_STALE_SECONDS: '1',
    WORKER_POLL_MS: '100',
    SCAN_RETRY_BASE_MS: '0',
    ...env,
  });
  const runtime = await createRuntime(config, { logger: logs.logger });
  const app = await buildApp(config, runtime.deps);
  const stopBackground = startBackground(runtime.deps);
  await app.listen({ port: Number(new URL(base).port), host: '127.0.0.1' });
  const sql = runtime.deps.sql;
  return {
    sql,
    logs,
    deps: runtime.deps,
    /** Polls until `done` holds (the reconciler and the scan worker run in the background). */
    async until(what: string, done: () => Promise<boolean>) {
      // generous: on a quiet machine it takes a few seconds, on a loaded one much longer
      const deadline = Date.now() + 90_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`not recovered within 90 s: ${what}`);
        await sleep(100);
      }
    },
    async close() {
      await app.close();
      await stopBackground();
      await runtime.close();
    },
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function promptOf(res: Response): PaymentRequired {
  expect(res.status).toBe(402);
  return JSON.parse(
    Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
}

/**
 * A paid POST signed from the service's own prompt (the same request unpaid first); `send()`
 * posts it with the signature, again and again.
 */
async function signedPost(
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
  signer: LocalAccount,
) {
  const prompt = promptOf(await fetch(url, { method: 'POST', headers, body }));
  const signed = await signPayment(signer, prompt, prompt.accepts[0]!);
  return {
    nonce: signed.nonce,
    send: () =>
      fetch(url, {
        method: 'POST',
        headers: { ...headers, 'payment-signature': signed.header },
        body,
      }),
  };
}

/** A purchase signed from the service's own prompt. */
function signedPurchase(base: string, itemId: string, buyer = newWallet()) {
  const body = JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true });
  return signedPost(`${base}/api/v1/items/${itemId}/acquire`, JSON_HEADERS, body, buyer);
}

/** An upload of a new project with its listing fee signed. */
function signedUpload(base: string, seller: LocalAccount = newWallet()) {
  const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
  const headers = req.headers as Record<string, string>;
  return signedPost(`${base}/api/v1/items`, headers, new Uint8Array(req.payload as Buffer), seller);
}

/** A request cut off by the kill: its connection dies with the process. */
const cutOff = (p: Promise<Response>) =>
  p.then(
    (res) => `answered ${res.status}`,
    () => 'cut off',
  );

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const paymentOf = (s: State, nonce: string) => s.payments.find((p) => p.nonce === nonce)!;

describe.concurrent('kill -9 of the service, then a restart on the same data directory', () => {
  it('local facilitator: a settled purchase and listing fee, a half-stored upload and a scan under way all end exactly once', async () => {
    const dataDir = await freshDataDir('crash-local-');
    dirs.push(dataDir);
    // the Postgres tier: both processes on one fresh database of the cluster (archives still here)
    const db = await databaseEnv();
    const archives = path.join(dataDir, 'archives');
    // the scan's lease is the crashed worker's: short, so that the restart need not wait 30 s
    const svc = await startService(dataDir, { ...db, SCAN_LEASE_SECONDS: '5' });

    // A listing whose scan is under way when the process dies.
    await svc.arm('mid-scan');
    const scanning = await signedUpload(svc.base);
    const listed = await scanning.send();
    expect(listed.status).toBe(202);
    const scanningId = ((await listed.json()) as { item_id: string }).item_id;
    await svc.paused('mid-scan');

    // An upload whose archive is half written to the blob store.
    await svc.arm('mid-put');
    const halfStored = await signedUpload(svc.base);
    const halfStoredSent = cutOff(halfStored.send());
    await svc.paused('mid-put');

    // A listing fee and a purchase the facilitator settled, nothing of either outcome written.
    await svc.arm('after-settle');
    await svc.arm('after-settle');
    const feeSettled = await signedUpload(svc.base);
    const feeSent = cutOff(feeSettled.send());
    await svc.paused('after-settle');
    const purchase = await signedPurchase(svc.base, svc.itemId);
    const purchaseSent = cutOff(purchase.send());
    await svc.paused('after-settle');
    // A purchase whose authorization is claimed and not yet sent for settlement.
    await svc.arm('before-settle');
    const unsent = await signedPurchase(svc.base, svc.itemId);
    const unsentSent = cutOff(unsent.send());
    await svc.paused('before-settle');

    const before = await svc.state();
    for (const nonce of [feeSettled.nonce, purchase.nonce]) {
      expect(paymentOf(before, nonce).status).toBe('settling');
      expect(before.transfers.filter((t) => t.nonce === nonce)).toHaveLength(1); // money moved
    }
    expect(paymentOf(before, unsent.nonce).status).toBe('settling');
    expect(before.transfers.filter((t) => t.nonce === unsent.nonce)).toEqual([]); // nothing moved
    expect(before.orders).toEqual([]);
    expect(before.items.map((i) => i.id)).not.toContain(paymentOf(before, feeSettled.nonce).itemId);
    expect(before.items.find((i) => i.id === scanningId)!.status).toBe('scanning');
    expect((await files(archives)).filter((f) => f.endsWith('.partial'))).toHaveLength(1);

    await svc.kill9();
    expect([await halfStoredSent, await feeSent, await purchaseSent, await unsentSent]).toEqual([
      'cut off',
      'cut off',
      'cut off',
      'cut off',
    ]);
    // An hour passes for the half-stored upload's bytes (the sweep spares younger ones: a put
    // may be in flight).
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    for (const f of (await files(archives)).filter((f) => f.endsWith('.partial')))
      await utimes(path.join(archives, f), hourAgo, hourAgo);

    const svc2 = await restart(dataDir, svc.base, db);
    try {
      const { sql } = svc2;
      // Without any retry: the reconciler completes the two settled payments and releases the
      // claim nothing was charged for; the scan is taken up again.
      await svc2.until('payments completed or released, listings scanned', async () => {
        const open = await sql`
          select 1 from x402_payments where status not in ('completed', 'released')
          union all select 1 from items where status not in ('active', 'rejected')
          union all select 1 from jobs where state <> 'done'`;
        return open.length === 0 && (await sql`select 1 from orders`).length === 1;
      });
      const [order] = await sql<{ id: string; itemId: string; nonce: string }[]>`
        select o.id, o.item_id, p.nonce from orders o join x402_payments p on p.id = o.payment_id`;
      expect(order).toMatchObject({ itemId: svc.itemId, nonce: purchase.nonce });
      const [released] = await sql<{ status: string }[]>`
        select status from x402_payments where nonce = ${unsent.nonce}`;
      expect(released!.status).toBe('released');
      const feeItem = paymentOf(before, feeSettled.nonce).itemId;
      const items = await sql<{ id: string; status: string }[]>`select id, status from items`;
      expect(items).toEqual(
        expect.arrayContaining([
          { id: scanningId, status: 'active' },
          { id: feeItem, status: 'active' },
        ]),
      );

      // The buyer and the seller retry the very same signed requests: the same order and the
      // same listing, and nothing charged again.
      const again = await purchase.send();
      expect(again.status).toBe(200);
      expect(((await again.json()) as { order_id: string }).order_id).toBe(order!.id);
      const feeAgain = await feeSettled.send();
      expect(feeAgain.status).toBe(202);
      expect(((await feeAgain.json()) as { item_id: string }).item_id).toBe(feeItem);
      // The purchase never charged: its retry buys it now, once.
      const unsentAgain = await unsent.send();
      expect(unsentAgain.status).toBe(200);
      // The half-stored upload was never charged: its retry lists it now, once.
      const halfAgain = await halfStored.send();
      expect(halfAgain.status).toBe(202);
      const halfItem = ((await halfAgain.json()) as { item_id: string }).item_id;
      await svc2.until('the retried upload scanned', async () => {
        const [row] = await sql<
          { status: string }[]
        >`select status from items where id = ${halfItem}`;
        return row?.status === 'active';
      });

      const payments = await sql<{ nonce: string; status: string }[]>`
        select nonce, status from x402_payments`;
      expect(payments.every((p) => p.status === 'completed')).toBe(true);
      const transfers = await sql<{ nonce: string }[]>`select nonce from dev_ledger_transfers`;
      // one transfer per paid authorization: 3 listing fees and 2 purchases, none twice
      expect(transfers.map((t) => t.nonce).sort()).toEqual(payments.map((p) => p.nonce).sort());
      expect(transfers).toHaveLength(5);
      expect(await sql`select 1 from orders`).toHaveLength(2);

      // Every listing has its bytes, and there are no other bytes (the torn put was swept).
      const keys = await sql<{ archiveKey: string }[]>`select archive_key from items`;
      expect(await files(archives)).toEqual([...new Set(keys.map((k) => k.archiveKey))].sort());
      expect(svc2.logs.errors()).toEqual([]);
    } finally {
      await svc2.close();
    }
  }, 240_000);

  it('HTTP facilitator and chain RPC on loopback: a settlement whose answer was lost and one still in flight are completed from the chain, never charged twice', async () => {
    const facilitator = await startFakeFacilitator();
    const rpc = await startFakeRpc();
    const broadcast = new Map<string, string>(); // nonce -> transaction
    facilitator.onSettle = (s) => {
      rpc.mine(s.payer, s.nonce, s.transaction);
      broadcast.set(s.nonce, s.transaction);
    };
    const env = {
      ...(await databaseEnv()),
      FACILITATOR_URL: facilitator.url,
      FACILITATOR_TIMEOUT_MS: '20000',
      RPC_URL_BASE: rpc.url,
      RPC_URL_POLYGON: rpc.url,
    };
    const dataDir = await freshDataDir('crash-http-');
    dirs.push(dataDir);
    try {
      const svc = await startService(dataDir, env);
      await svc.arm('after-settle');
      const answered = await signedPurchase(svc.base, svc.itemId);
      const answeredSent = cutOff(answered.send());
      await svc.paused('after-settle');
      // The facilitator takes the next settlement, sends it to the chain and never answers.
      facilitator.mode = 'settle_hang';
      const inFlight = await signedPurchase(svc.base, svc.itemId);
      const inFlightSent = cutOff(inFlight.send());
      while (!broadcast.has(inFlight.nonce)) await sleep(10);

      const before = await svc.state();
      expect(before.payments.map((p) => p.status)).toEqual(['settling', 'settling']);
      expect(before.orders).toEqual([]);
      await svc.kill9();
      expect([await answeredSent, await inFlightSent]).toEqual(['cut off', 'cut off']);
      facilitator.mode = 'ok';
      const settles = () => facilitator.requests.filter((r) => r.path === '/settle').length;
      expect(settles()).toBe(2);

      const svc2 = await restart(dataDir, svc.base, env);
      try {
        const { sql } = svc2;
        await svc2.until('both purchases completed from the chain', async () => {
          const open = await sql`select 1 from x402_payments where status <> 'completed'`;
          return open.length === 0;
        });
        const orders = await sql<{ id: string; nonce: string; transaction: string }[]>`
          select o.id, p.nonce, o.transaction from orders o join x402_payments p on p.id = o.payment_id`;
        expect(orders).toHaveLength(2);
        for (const o of orders) expect(o.transaction).toBe(broadcast.get(o.nonce));

        for (const p of [answered, inFlight]) {
          const again = await p.send();
          expect(again.status).toBe(200);
          const { order_id } = (await again.json()) as { order_id: string };
          expect(order_id).toBe(orders.find((o) => o.nonce === p.nonce)!.id);
        }
        expect(settles()).toBe(2); // nothing was settled again
        expect(svc2.logs.errors()).toEqual([]);
      } finally {
        await svc2.close();
      }
    } finally {
      await facilitator.close();
      await rpc.close();
    }
  }, 240_000);
  it('hosted /mcp: an acquire_item cut off by the kill after settlement is one order and one charge; the agent calling again gets it', async () => {
    const dataDir = await freshDataDir('crash-mcp-');
    dirs.push(dataDir);
    const db = await databaseEnv();
    const svc = await startService(dataDir, db);
    const agent = await hostedMcpAgent(svc.base, 'crash-agent');
    const args = { item_id: svc.itemId, chain: 'base', accept_terms: true };
    const payment = await agent.payer.createPaymentPayload(
      agent.requiredOf(await agent.call('acquire_item', args))!,
    );
    await svc.arm('after-settle');
    const inFlight = agent.call('acquire_item', args, payment).then(
      () => 'answered',
      () => 'cut off',
    );
    await svc.paused('after-settle');
    const before = await svc.state();
    expect(before.orders).toEqual([]);
    expect(before.transfers).toHaveLength(1); // the money moved, nothing of it is written
    await svc.kill9();
    expect(await inFlight).toBe('cut off');

    const svc2 = await restart(dataDir, svc.base, db);
    try {
      const { sql } = svc2;
      const ordersOf = () => sql<{ id: string }[]>`
        select id from orders where item_id = ${svc.itemId}`;
      await svc2.until(
        'the order of the settled payment',
        async () => (await ordersOf()).length > 0,
      );
      // the same call with the same payment, as the agent retries a call that never answered
      const again = await agent.call('acquire_item', args, payment);
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
      const orders = await ordersOf();
      expect(orders).toHaveLength(1);
      expect((again.structuredContent as { order_id: string }).order_id).toBe(orders[0]!.id);
      const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`
        select count(*)::int as n from dev_ledger_transfers
        where lower(payer) = lower(${agent.account.address})`;
      expect(n).toBe(1);
    } finally {
      await agent.client.close();
      await svc2.close();
    }
  }, 240_000);
});

describe('kill -9 after settlement, then a restart with the default stale period (30 s)', () => {
  // The reconciler's timer is out of the way (10 minutes): what resolves the claim is the retry,
  // or a pass the test runs itself.
  const settings = { RECONCILE_STALE_SECONDS: '30', RECONCILE_INTERVAL_SECONDS: '600' };

  it.skipIf(ON_POSTGRES)(
    'embedded: the claims of the killed process are resolved at once, by the buyer’s retry and by the first reconciler pass',
    async () => {
      // Only one process ever uses an embedded database: a claim written before this process
      // opened it has no request running for it (docs/operating.md, "A replica killed
      // mid-purchase"). On Postgres another replica's young claim may, and waits its 30 s.
      const dataDir = await freshDataDir('crash-orphan-');
      dirs.push(dataDir);
      const svc = await startService(dataDir, {});
      await svc.arm('after-settle');
      await svc.arm('after-settle');
      const retried = await signedPurchase(svc.base, svc.itemId);
      const retriedSent = cutOff(retried.send());
      await svc.paused('after-settle');
      const unretried = await signedPurchase(svc.base, svc.itemId);
      const unretriedSent = cutOff(unretried.send());
      await svc.paused('after-settle');
      const before = await svc.state();
      expect(before.payments.map((p) => p.status)).toEqual(['settling', 'settling']);
      expect(before.transfers).toHaveLength(2); // both charged, neither written
      expect(before.orders).toEqual([]);
      await svc.kill9();
      expect([await retriedSent, await unretriedSent]).toEqual(['cut off', 'cut off']);

      const svc2 = await restart(dataDir, svc.base, settings);
      try {
        const { sql } = svc2;
        // The buyer sends the same signed request again: the order at once, not 409
        // payment_settlement_pending until the claim is 30 s old (main: 409 after waiting 15 s).
        const sent = performance.now();
        const again = await retried.send();
        const ms = performance.now() - sent;
        expect(again.status).toBe(200);
        expect(ms).toBeLessThan(10_000); // well under the stale period, on a loaded machine too
        const { order_id } = (await again.json()) as { order_id: string };
        // The reconciler's first pass after the start completes the other one, young as it is.
        expect(await reconcileNow(svc2.deps)).toMatchObject({ completed: 1, released: 0 });

        const orders = await sql<{ id: string; nonce: string }[]>`
          select o.id, p.nonce from orders o join x402_payments p on p.id = o.payment_id`;
        expect(orders).toHaveLength(2);
        expect(orders.find((o) => o.nonce === retried.nonce)!.id).toBe(order_id);
        expect(orders.map((o) => o.nonce).sort()).toEqual([retried.nonce, unretried.nonce].sort());
        const transfers = await sql`select nonce from dev_ledger_transfers`;
        expect(transfers).toHaveLength(2); // nothing settled again
        // a later retry answers the same order
        const later = await retried.send();
        expect(later.status).toBe(402); // answered once; a copy without an id gets no links
        expect(((await later.json()) as { order_id: string }).order_id).toBe(order_id);
        expect(svc2.logs.errors()).toEqual([]);
      } finally {
        await svc2.close();
      }
    },
    240_000,
  );
});
