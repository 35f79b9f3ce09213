/**
 * The service in a process of its own on a data directory on disk, for the kill -9 tests
 * (test/integration/crash-recovery.test.ts): the runtime, app and background work `main.ts serve`
 * starts, plus test-only parts (nothing in src/ knows of them):
 * - env SEED_ITEM=1: one purchasable listing, its id in the ready line;
 * - IPC `{ arm: point }`: the next operations to reach `point` stop there, tell the parent
 *   `{ paused: point }` and wait for ever, so that the parent can kill -9 the process at the worst
 *   moment of each. Points: `before-settle` (the authorization is claimed, nothing sent to the
 *   facilitator), `after-settle` (the facilitator settled; nothing of the outcome is written), `mid-put` (half of an uploaded archive is on disk), `mid-scan` (a scan marked its
 *   listing `scanning` and opens its archive);
 * - IPC `'state'`: answers the rows the tests check (payments, orders, listings, jobs, ledger).
 * Prints one JSON line `{ ready, itemId? }` on stdout once listening; logs go to stderr.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime, startBackground } from '../../src/runtime.js';
import type { FsBlobStore } from '../../src/storage/fs-store.js';
import { createSaleItem } from './items.js';

export type PausePoint = 'before-settle' | 'after-settle' | 'mid-put' | 'mid-scan';

const config = loadConfig(process.env);
const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
const { deps } = runtime;

/** Tells the parent, then never returns: the parent kills the process here. */
async function pause(point: PausePoint): Promise<never> {
  process.send!({ paused: point });
  return new Promise<never>(() => {});
}

/** How many of the next operations stop at each point (`arm` adds one). */
const armed: Record<PausePoint, number> = {
  'before-settle': 0,
  'after-settle': 0,
  'mid-put': 0,
  'mid-scan': 0,
};
const take = (point: PausePoint) => {
  const taken = armed[point] > 0 && armed[point]-- > 0;
  settleHook();
  return taken;
};

// The settlement hook is set only while a settlement point is armed: it also turns the local
// facilitator's one-statement path off (whose claim, transfer and outcome commit together).
const { payments } = deps;
function settleHook(): void {
  if (armed['before-settle'] + armed['after-settle'] > 0)
    payments.testHooks.afterSettle = afterSettle;
  else delete payments.testHooks.afterSettle;
}
async function afterSettle() {
  if (take('after-settle')) await pause('after-settle');
}
const settleChecked = payments.facilitator.settleChecked.bind(payments.facilitator);
payments.facilitator.settleChecked = async (payload, requirement) => {
  // the authorization is claimed, nothing is sent to the facilitator yet
  if (take('before-settle')) await pause('before-settle');
  return settleChecked(payload, requirement);
};
const store = deps.storage as FsBlobStore;
const put = store.put.bind(store);
store.put = async (key, body, opts) => {
  if (!take('mid-put')) return put(key, body, opts);
  const bytes = body as Buffer; // an upload's bytes are in memory once validated
  const dir = path.dirname(path.join(store.root, key));
  async function* halfThenPause() {
    yield bytes.subarray(0, bytes.length >> 1);
    // once the store's temporary file holds the first half, stop
    for (;;) {
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (name.endsWith('.partial') && (await stat(path.join(dir, name))).size > 0)
          await pause('mid-put');
      }
      await sleep(5);
    }
  }
  return put(key, Readable.from(halfThenPause()), opts);
};
const read = store.createReadStream.bind(store);
store.createReadStream = async (key, range) => {
  // a scan opens the archive of a listing it has marked `scanning`
  if (take('mid-scan')) await pause('mid-scan');
  return read(key, range);
};

let itemId: string | undefined;
if (process.env.SEED_ITEM === '1') {
  itemId = (await createSaleItem(deps, { priceUsdc: 0.5 })).itemId;
}

const app = await buildApp(config, deps);
const stopBackground = config.IN_PROCESS_WORKER ? startBackground(deps) : undefined;
await app.listen({ port: config.PORT, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ ready: true, itemId })}\n`);

process.on('message', (msg: 'state' | { arm: PausePoint }) => {
  if (msg === 'state') {
    void snapshot().then(
      (state) => process.send!({ state }),
      (e: unknown) => process.send!({ error: String(e) }),
    );
  } else {
    armed[msg.arm]++;
    settleHook();
    process.send!({ armed: msg.arm });
  }
});
process.on('SIGTERM', () => {
  void (async () => {
    await app.close();
    await stopBackground?.();
    await runtime.close();
    process.exit(0);
  })();
});

async function snapshot() {
  const { sql } = deps;
  const [payments, orders, items, jobs, transfers] = await Promise.all([
    sql`select id, operation, status, payer, nonce, context->>'item_id' as item_id from x402_payments`,
    sql`select id, item_id, payment_id from orders`,
    sql`select id, status, archive_key from items`,
    sql`select id, kind, state, attempts, item_id from jobs`,
    sql`select payer, nonce, amount_micro, status from dev_ledger_transfers`,
  ]);
  return { payments, orders, items, jobs, transfers };
}
