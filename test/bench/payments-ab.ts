/**
 * A/B harness for one lever of the payments hot path: two of our servers in this process, both
 * with the embedded database on the main thread, driven in interleaved rounds (A B A B ...) by the
 * bench's child-process driver, so that load drift on a shared machine hits both alike. B differs
 * from A by SQL run on its database before the rounds (AB_DDL_B, `;`-separated) and, during B's
 * rounds only, `globalThis.__payLever` is true (a switch an experiment may read). Reports CPU per
 * completion and the CPU spent inside PGlite for each, and the median per-round ratio B / A:
 *   AB_DDL_B="set plan_cache_mode = force_generic_plan" node --import tsx test/bench/payments-ab.ts
 * AB_ROOT_A=<another checkout> serves A from that checkout's src/ instead (before/after of a
 * change in one run; its node_modules must be these, e.g. a symlink).
 * AB_DUMP_SQL=1 prints the largest statement text PGlite parses during a completion.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver, median } from './load.js';
import { paidServer, type Stack } from './paid-server.js';
import { meterPGliteCpu } from './pglite-cpu.js';

const N = Number(process.env.AB_N ?? 600);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);

const sign = signHeaders;

let largest = '';
// with AB_DUMP_SQL, the largest statement text PGlite parses (a Parse message: 'P', name, text)
const pglite = meterPGliteCpu(
  process.env.AB_DUMP_SQL
    ? (messages) => {
        const bytes = Buffer.from(messages);
        if (bytes[0] === 0x50 && bytes.length > largest.length) {
          const name = bytes.indexOf(0, 5);
          largest = bytes.toString('utf8', name + 1, bytes.indexOf(0, name + 1));
        }
      }
    : undefined,
);

/** The app, runtime and test helpers of another checkout (AB_ROOT_A); undefined: this one's. */
async function stackAt(root: string | undefined): Promise<Stack | undefined> {
  if (!root) return undefined;
  const file = path.resolve(root, 'test/bench/payments-ab-stack.ts');
  return (await import(pathToFileURL(file).href)) as Stack;
}

const onDisk = Boolean(process.env.AB_ON_DISK);
const a = await paidServer({
  ddl: process.env.AB_DDL_A,
  stack: await stackAt(process.env.AB_ROOT_A),
  onDisk,
});
const b = await paidServer({ ddl: process.env.AB_DDL_B, onDisk });
const driver = await Driver.start(Number(process.env.AB_CONCURRENCY ?? 8));
const wallets = Array.from({ length: 40 }, () => newWallet());
const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
const batches = async (s: typeof a, n: number) =>
  sign(wallets, s.required, s.required.accepts[0]!, n);
const flag = globalThis as { __payLever?: boolean };
const run = async (s: typeof a, headers: string[], lever: boolean) => {
  flag.__payLever = lever;
  pglite.reset();
  const r = await driver.round(s.url, headers, body);
  flag.__payLever = false;
  return { ...r, dbMs: pglite.ms() / headers.length };
};
console.log(`signing ${2 * (ROUNDS + 1) * N} payments (not timed)…`);
const warm = [await batches(a, N), await batches(b, N)];
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push([await batches(a, N), await batches(b, N)]);
await run(a, warm[0]!, false);
await run(b, warm[1]!, true);
type Measured = Awaited<ReturnType<typeof run>>;
const ra: Measured[] = [];
const rb: Measured[] = [];
for (const [ha, hb] of rounds) {
  ra.push(await run(a, ha!, false));
  rb.push(await run(b, hb!, true));
}
const f = (x: number) => x.toFixed(3);
const line = (name: string, rs: Measured[]) =>
  `${name}: CPU ms ${rs.map((r) => f(r.cpuMs)).join(', ')} | in PGlite ${rs.map((r) => f(r.dbMs)).join(', ')} | ${rs.map((r) => Math.round(r.perSecond)).join(', ')}/s | failures ${rs.reduce((n, r) => n + r.failures, 0)}`;
console.log(line('A', ra));
console.log(line('B', rb));
console.log(
  `median B/A: CPU ${median(rb.map((r, i) => r.cpuMs / ra[i]!.cpuMs)).toFixed(3)}, in PGlite ${median(rb.map((r, i) => r.dbMs / ra[i]!.dbMs)).toFixed(3)}; medians A ${f(median(ra.map((r) => r.cpuMs)))} / B ${f(median(rb.map((r) => r.cpuMs)))} ms`,
);
for (const s of [a, b]) {
  const [row] = await s.sql<
    { n: number }[]
  >`select count(*)::int as n from orders where item_id = ${s.item.itemId}`;
  console.log(`orders written: ${row!.n}`);
}
if (process.env.AB_DUMP_SQL) console.log(largest);
driver.stop();
await a.close();
await b.close();
process.exit(0);
