/**
 * Profiling harness for one side of the payments bench: rounds of N paid completions through our
 * whole stack (load from the bench's child-process driver), nothing else; with PROFILE_OUT the
 * last round's main-thread CPU profile is written there (open it in Chrome DevTools):
 *   PROFILE_OUT=/tmp/pay.cpuprofile node --import tsx test/bench/payments-profile.ts
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PaymentRequired } from '@x402/core/types';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver } from './load.js';
import { meterPGliteCpu } from './pglite-cpu.js';

const N = Number(process.env.PROFILE_N ?? 2000);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 2);

const sign = signHeaders;

const config = loadConfig({
  EMBEDDED_DB_IN_MEMORY: 'true',
  EMBEDDED_DB_THREAD: process.env.PROFILE_DB ? 'false' : (process.env.EMBEDDED_DB_THREAD ?? 'true'),
  LOG_LEVEL: 'silent',
  IN_PROCESS_WORKER: 'false',
  PUBLIC_BASE_URL: 'http://127.0.0.1',
  LOCAL_FACILITATOR_START_BALANCE_USDC: '1000000',
  ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'bench-pay-')),
});
// CPU spent inside PGlite (WASM execution of each protocol message batch)
const pglite = process.env.PROFILE_DB ? meterPGliteCpu() : undefined;

const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
const app = await buildApp(config, runtime.deps);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const driver = await Driver.start(8);
for (const ddl of (process.env.PROFILE_DDL ?? '').split(';').filter((x) => x.trim()))
  await runtime.deps.sql.unsafe(ddl);
const item = await createSaleItem(runtime.deps, { priceUsdc: 0.1 });
const url = `${base}/api/v1/items/${item.itemId}/acquire`;
const prompt = await fetch(url, { method: 'POST' });
const required = JSON.parse(
  Buffer.from(prompt.headers.get('payment-required')!, 'base64').toString(),
) as PaymentRequired;
const wallets = Array.from({ length: 40 }, () => newWallet());
const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
const batches = [];
for (let i = 0; i <= ROUNDS; i++)
  batches.push(await sign(wallets, required, required.accepts[0]!, i ? N : 100));
await driver.round(url, batches[0]!, body);
const best = { cpu: Infinity, db: Infinity };
const session = new Session();
session.connect();
for (let i = 1; i <= ROUNDS; i++) {
  const last = i === ROUNDS && process.env.PROFILE_OUT;
  if (last) {
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  pglite?.reset();
  const r = await driver.round(url, batches[i]!, body);
  const inDb = (pglite?.ms() ?? 0) / batches[i]!.length;
  if (i > 1) best.cpu = Math.min(best.cpu, r.cpuMs);
  if (i > 1) best.db = Math.min(best.db, inDb);
  if (last) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(process.env.PROFILE_OUT!, JSON.stringify(profile));
  }
  console.log(
    `round ${i}: ${Math.round(r.perSecond)}/s, CPU ${r.cpuMs.toFixed(3)} ms (in PGlite ${inDb.toFixed(3)}), failures ${r.failures}`,
  );
}
console.log(
  `best of rounds 2..: CPU ${best.cpu.toFixed(3)} ms, in PGlite ${best.db.toFixed(3)} ms`,
);
driver.stop();
await app.close();
await runtime.close();
process.exit(0);
