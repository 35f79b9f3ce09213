import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PaymentRequired } from '@x402/core/types';
import * as here from './payments-ab-stack.js';

/** The app, runtime and test helpers a bench server is built from (this checkout's by default). */
export type Stack = typeof here;

export interface PaidServerOptions {
  /** Embedded database on a worker thread (`EMBEDDED_DB_THREAD`); default false, as served. */
  dbThread?: boolean;
  /** Embedded database on disk in a fresh directory instead of in memory. */
  onDisk?: boolean;
  /** What a never-seen payer holds on the dev ledger. */
  startBalanceUsdc?: number;
  /** SQL run on the database before the item is created (`;`-separated). */
  ddl?: string;
  stack?: Stack;
  /** More config keys (e.g. `EMBEDDED_DB_FSYNC`). */
  env?: Record<string, string>;
}

/**
 * One of our servers for the payment benches: the runtime with the local facilitator, its app on
 * an ephemeral loopback port, an item on sale for 0.10 USDC and the 402 prompt of its acquire
 * route (what payers sign).
 */
export async function paidServer(opts: PaidServerOptions = {}) {
  const { loadConfig, createRuntime, createLogger, buildApp, createSaleItem } = opts.stack ?? here;
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: opts.onDisk ? 'false' : 'true',
    ...(opts.onDisk && { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-pay-data-')) }),
    EMBEDDED_DB_THREAD: String(opts.dbThread ?? false),
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    LOCAL_FACILITATOR_START_BALANCE_USDC: String(opts.startBalanceUsdc ?? 1_000_000),
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'bench-pay-')),
    ...opts.env,
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const app = await buildApp(config, runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { sql } = runtime.deps;
  for (const s of (opts.ddl ?? '').split(';').filter((x) => x.trim())) await sql.unsafe(s);
  const item = await createSaleItem(runtime.deps, { priceUsdc: 0.1 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const url = `${base}/api/v1/items/${item.itemId}/acquire`;
  const prompt = await fetch(url, { method: 'POST' });
  const required = JSON.parse(
    Buffer.from(prompt.headers.get('payment-required')!, 'base64').toString(),
  ) as PaymentRequired;
  return {
    runtime,
    sql,
    item,
    url,
    required,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
