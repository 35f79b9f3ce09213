/**
 * Profiling harness for one side of the payments bench: rounds of N paid completions through our
 * whole stack (load from the bench's child-process driver), nothing else; with PROFILE_OUT the
 * last round's main-thread CPU profile is written there (open it in Chrome DevTools):
 *   PROFILE_OUT=/tmp/pay.cpuprofile node --import tsx test/bench/payments-profile.ts
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver } from './load.js';
import { paidServer } from './paid-server.js';
import { meterPGliteCpu } from './pglite-cpu.js';

const N = Number(process.env.PROFILE_N ?? 2000);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 2);

const sign = signHeaders;

// CPU spent inside PGlite (WASM execution of each protocol message batch)
const pglite = process.env.PROFILE_DB ? meterPGliteCpu() : undefined;
const server = await paidServer({
  dbThread: process.env.PROFILE_DB ? false : process.env.EMBEDDED_DB_THREAD !== 'false',
  ddl: process.env.PROFILE_DDL,
});
const { url, required } = server;
const driver = await Driver.start(8);
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
await server.close();
process.exit(0);
