/**
 * Where the embedded database's time goes in one purchase: captures the statement a repeat buyer's
 * paid completion issues (its text and bound parameters, as PGlite receives them), then replays it
 * through postgres.js with a fresh nonce, transaction and ids each time, beside variants with one
 * part removed and two baselines, in interleaved rounds in one database:
 *   node --import tsx test/bench/payments-statement.ts
 * Reports process CPU and CPU inside PGlite per execution, and WAL bytes per execution. The
 * variants remove writes the product must keep; they exist only to price them.
 * STATEMENT_N (2000) executions per variant per round, STATEMENT_ROUNDS (3) after one of warm-up,
 * STATEMENT_DDL (`;`-separated) runs first (e.g. `set plan_cache_mode = force_custom_plan`);
 * STATEMENT_AB (below) replaces the variants with edits of the statement's text; STATEMENT_PARTS=1
 * with every row, index and check of a repeat purchase priced one by one (below); STATEMENT_ONLY
 * (a regular expression) keeps the sides it names. STATEMENT_INTERLEAVE=1 runs the sides one
 * execution each in turn (the comparison that holds on a loaded VM); STATEMENT_EXPLAIN=1 prints
 * each side's EXPLAIN ANALYZE (buffers, WAL, trigger times) first; STATEMENT_PRINT=1 prints the
 * captured text.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver, median } from './load.js';
import { paidServer } from './paid-server.js';
import { meterPGliteCpu } from './pglite-cpu.js';

const N = Number(process.env.STATEMENT_N ?? 2000);
const ROUNDS = Number(process.env.STATEMENT_ROUNDS ?? 3);
const CONCURRENCY = 8;

/** Parse ('P': name, text) and Bind ('B': portal, name, formats, text parameters) messages seen. */
const texts = new Map<string, string>();
const binds: Array<{ name: string; params: string[] }> = [];
let capturing = true;
function capture(messages: Uint8Array) {
  if (!capturing) return;
  const buf = Buffer.from(messages);
  for (let at = 0; at < buf.length; at += 1 + buf.readInt32BE(at + 1)) {
    const body = buf.subarray(at + 5, at + 1 + buf.readInt32BE(at + 1));
    if (buf[at] === 0x50) {
      const end = body.indexOf(0);
      texts.set(
        body.toString('utf8', 0, end),
        body.toString('utf8', end + 1, body.indexOf(0, end + 1)),
      );
    } else if (buf[at] === 0x42) {
      let p = body.indexOf(0) + 1;
      const end = body.indexOf(0, p);
      const name = body.toString('utf8', p, end);
      p = end + 1;
      p += 2 + 2 * body.readInt16BE(p);
      const params: string[] = [];
      for (let n = body.readInt16BE((p += 2) - 2); n > 0; n--) {
        const len = body.readInt32BE(p);
        params.push(len < 0 ? '' : body.toString('utf8', p + 4, p + 4 + len));
        p += 4 + Math.max(len, 0);
      }
      binds.push({ name, params });
    }
  }
}
const pglite = meterPGliteCpu(capture);

const server = await paidServer();
const { url, required } = server;
// one buyer: its first purchase provisions it, the next two take the repeat buyer's statement;
// STATEMENT_FIRST=1 takes two new buyers' first purchases instead (the provisioning statement)
const FIRST = Boolean(process.env.STATEMENT_FIRST);
const buyer = [newWallet()];
const driver = await Driver.start(1);
const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
if (FIRST) {
  binds.length = 0;
  for (const w of [buyer[0]!, newWallet()])
    await driver.round(url, await signHeaders([w], required, required.accepts[0]!, 1), body);
} else {
  await driver.round(url, await signHeaders(buyer, required, required.accepts[0]!, 1), body);
  binds.length = 0;
  await driver.round(url, await signHeaders(buyer, required, required.accepts[0]!, 2), body);
}
driver.stop();
capturing = false;
const [one, two] = binds.filter((b) => /ledger_gate as/.test(texts.get(b.name) ?? ''));
if (!one || !two) throw new Error('the purchase statement was not seen');
const text = texts.get(one.name)!;
// STATEMENT_PRINT=1 prints the captured text (to write STATEMENT_AB's edits against)
if (process.env.STATEMENT_PRINT) console.log(text);

// Values that differ between the two purchases and name one purchase (its nonce, transaction, and
// payment and order ids; for new buyers also the payer's and payout addresses and the username)
// are replaced by fresh ones each time, inside JSON parameters too (an address in either case).
const unique = FIRST
  ? /^(0x[0-9a-fA-F]{64}|0x[0-9a-fA-F]{40}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9_-]{3,40}|\{.*\})$/
  : /^(0x[0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const inner = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g;
const varying = [
  ...new Set(
    one.params
      .filter((v, i) => v !== two.params[i] && unique.test(v))
      .flatMap((v) => (v.startsWith('{') || v.startsWith('[') ? [] : [v]))
      .concat(
        FIRST
          ? one.params.flatMap((v, i) =>
              v !== two.params[i] ? [...v.matchAll(inner)].map((m) => m[0]) : [],
            )
          : [],
      )
      .flatMap((v) => (/^0x[0-9a-fA-F]{40}$/.test(v) ? [v, v.toLowerCase()] : [v])),
  ),
].filter((v) => !two.params.includes(v) && !two.params.some((p) => p.includes(v)));
const fresh = () => {
  const to = new Map<string, string>();
  for (const v of varying) {
    if (to.has(v)) continue;
    if (/^0x[0-9a-fA-F]{40}$/.test(v)) {
      const a = `0x${randomBytes(20).toString('hex')}`;
      to.set(v, a);
      to.set(v.toLowerCase(), a);
    } else
      to.set(
        v,
        v.startsWith('0x')
          ? `0x${randomBytes(32).toString('hex')}`
          : /^[0-9a-f]{8}-/.test(v)
            ? randomUUID()
            : `u${randomBytes(8).toString('hex')}`,
      );
  }
  return one.params.map((p) =>
    p.length > 66 || to.has(p) ? varying.reduce((s, v) => s.split(v).join(to.get(v)!), p) : p,
  );
};
if (process.env.STATEMENT_PRINT) console.log('varying', varying);

/** Keeps every parameter typed when a variant no longer uses some (Postgres must infer them). */
function keepParams(t: string): string {
  const unused = one!.params
    .map((_, i) => i + 1)
    .filter((k) => !new RegExp(`\\$${k}(?![0-9])`).test(t));
  if (!unused.length) return t;
  const cte = `unused as (select ${unused.map((k) => `$${k}::text`).join(', ')})`;
  return /^\s*with /.test(t) ? t.replace(/with /, `with ${cte}, `) : `with ${cte} ${t}`;
}
const without =
  (re: RegExp, to = '') =>
  (t: string) => {
    const out = t.replace(re, to);
    if (out === t) throw new Error(`variant found nothing to remove: ${re}`);
    return out;
  };

const { sql } = server;
await sql`create table bench_floor (payer text not null, nonce text not null, primary key (payer, nonce))`;
// STATEMENT_DDL_SEP (default `;`) splits STATEMENT_DDL when a function body holds semicolons
for (const ddl of (process.env.STATEMENT_DDL ?? '')
  .split(process.env.STATEMENT_DDL_SEP ?? ';')
  .filter((s) => s.trim()))
  await sql.unsafe(ddl);
let explaining = false;
let explained: string[] = [];
const replay = (edit: (t: string) => string) => {
  const edited = keepParams(edit(text));
  return async () => {
    if (!explaining) return sql.unsafe(edited, fresh(), { prepare: true });
    const rows = await sql.unsafe<Record<string, string>[]>(
      `explain (analyze, buffers, wal, verbose, settings) ${edited}`,
      fresh(),
    );
    explained = rows.map((r) => Object.values(r)[0]!);
  };
};
const sides: Array<[string, () => Promise<unknown>]> = [
  ['the purchase statement', replay((t) => t)],
  [
    'every write skipped (item re-check false)',
    replay(without(/with pre as \([\s\S]*?as ok\n\s*\)/, 'with pre as (select false as ok)')),
  ],
  [
    'without the nonce row',
    replay(
      without(
        /ledger_gate as \([\s\S]*?returning 1\n\s*\)/,
        'ledger_gate as (select 1 where (select ok from pre))',
      ),
    ),
  ],
  [
    'without order and audit row',
    replay((t) =>
      without(
        /jsonb_build_object\('orderId'[\s\S]*?limit 1\)\)/,
        "'{}'::jsonb",
      )(without(/placed as \([\s\S]*?from placed\n\s*\), /)(t)),
    ),
  ],
  [
    'without the payment record',
    replay(
      without(
        /done as \([\s\S]*?returning result::text as result_json\n\s*\)/,
        "done as (select '{}'::text as result_json from paid)",
      ),
    ),
  ],
  // its equal values bound once since stop 43 (src/db/statement.ts `merge`): as before, one $n per place
  ['one $n per place (before stop 43)', apart()],
  ['trivial statement, same parameters', replay(() => 'select 1')],
  ['fresh parameters alone (JS)', () => Promise.resolve(fresh())],
  [
    "the floor's insert",
    () =>
      sql`insert into bench_floor (payer, nonce) values (${randomBytes(20).toString('hex')}, ${randomBytes(32).toString('hex')})`,
  ],
];

/** The statement with every place its own `$n`, the merged values repeated (what was sent before). */
function apart() {
  const places = [...text.matchAll(/\$([0-9]+)/g)].map((m) => Number(m[1]) - 1);
  let n = 0;
  const each = text.replace(/\$([0-9]+)/g, () => `$${++n}`);
  return () => {
    const values = fresh();
    return sql.unsafe(
      each,
      places.map((k) => values[k]!),
      { prepare: true },
    );
  };
}

// STATEMENT_AB (JSON: [{ name, from, to }]) compares only the statement with these edits of its
// text (plain string replaced; `from` and `to` may be lists, replaced in turn), e.g. its writes into a table created by STATEMENT_DDL in another shape
if (process.env.STATEMENT_AB) {
  const edits = JSON.parse(process.env.STATEMENT_AB) as {
    name: string;
    from: string | string[];
    to: string | string[];
  }[];
  sides.splice(1, sides.length - 1);
  for (const e of edits) {
    const from = [e.from].flat();
    const to = [e.to].flat();
    sides.push([
      e.name,
      replay((t) => from.reduce((x, f, i) => without(new RegExp(escape(f), 'g'), to[i]!)(x), t)),
    ]);
  }
}
// STATEMENT_PARTS=1 (a repeat buyer's statement) prices every row, index entry and check it writes
// or runs, one side without each: rows replaced by what their CTE hands on, indexes and checks
// priced by writing the row into copies of its table with and without them (the copy with all of
// them is each table's control)
if (process.env.STATEMENT_PARTS) {
  // [table, copy, what the copy leaves out: 'checks', or the indexes whose definition matches]
  const copies: Array<[string, string, string]> = [
    ['x402_nonces', 'bench_nonces_all', ''],
    ['x402_nonces', 'bench_nonces_nochecks', 'checks'],
    ['dev_ledger_transfers', 'bench_transfers_all', ''],
    ['dev_ledger_transfers', 'bench_transfers_nopayernonce', '\\(network, asset, payer, nonce\\)'],
    ['orders', 'bench_orders_all', ''],
    ['orders', 'bench_orders_noseller', '\\(seller_id'],
    ['orders', 'bench_orders_nobuyeritem', '\\(buyer_id, item_id'],
    ['orders', 'bench_orders_nopaymentid', '\\(payment_id\\)'],
    ['orders', 'bench_orders_nochecks', 'checks'],
    ['legal_acceptances', 'bench_legal_all', ''],
    ['legal_acceptances', 'bench_legal_nokey', '\\(order_id\\)'],
    ['x402_payments', 'bench_payments_all', ''],
    ['x402_payments', 'bench_payments_nopayernonce', '\\(payer, nonce\\)'],
    ['x402_payments', 'bench_payments_nopartials', ' WHERE '],
    ['x402_payments', 'bench_payments_nochecks', 'checks'],
  ];
  for (const [table, copy, leave] of copies) {
    await sql.unsafe(`create table ${copy} (like ${table} including all)`);
    if (leave === 'checks') {
      const checks = await sql<{ name: string }[]>`
        select conname as name from pg_constraint where conrelid = ${copy}::regclass and contype = 'c'`;
      for (const c of checks) await sql.unsafe(`alter table ${copy} drop constraint ${c.name}`);
    } else if (leave) {
      const indexes = await sql<{ name: string; def: string }[]>`
        select indexname as name, indexdef as def from pg_indexes where tablename = ${copy}`;
      const gone = indexes.filter((i) => new RegExp(leave).test(i.def));
      if (!gone.length) throw new Error(`${copy}: no index matches ${leave}`);
      for (const i of gone) {
        const [c] = await sql<{ name: string }[]>`
          select conname as name from pg_constraint where conindid = (${i.name})::regclass`;
        await sql.unsafe(
          c ? `alter table ${copy} drop constraint ${c.name}` : `drop index ${i.name}`,
        );
      }
    }
  }
  const into = (table: string, copy: string) =>
    without(new RegExp(`insert into ${table} \\(`), `insert into ${copy} (`);
  sides.splice(1, sides.length - 1);
  const rows: Array<[string, (t: string) => string]> = [
    [
      'no nonce row',
      without(
        /ledger_gate as \([\s\S]*?returning 1\n\s*\)/,
        'ledger_gate as (select 1 where (select ok from pre))',
      ),
    ],
    [
      'no ledger transfer row',
      without(
        /ledger_transfer as \([\s\S]*?returning status\n\s*\)/,
        "ledger_transfer as (select 'confirmed'::text as status from ledger_gate)",
      ),
    ],
    [
      'no balance upserts',
      (t) =>
        without(
          /ledger_credit as \([\s\S]*?returning 1\n\s*\)/,
          'ledger_credit as (select 1)',
        )(without(/ledger_debit as \([\s\S]*?returning 1\n\s*\)/, 'ledger_debit as (select 1)')(t)),
    ],
    [
      'no buyer look-up (a constant agent)',
      without(
        /agent as \([\s\S]*?exists \(select 1 from paid\)\)/,
        "agent as (select '00000000-0000-0000-0000-000000000001'::uuid as id, 'u'::text as username, false as created from paid)",
      ),
    ],
    ['no audit row', without(/audited as \([\s\S]*?from placed\n\s*\)/, 'audited as (select 1)')],
    [
      'no order (nor audit row)',
      (t) =>
        without(
          /audited as \([\s\S]*?from placed\n\s*\)/,
          'audited as (select 1)',
        )(without(/placed as \([\s\S]*?returning id\n\s*\)/, 'placed as (select 1)')(t)),
    ],
    [
      'no payment record',
      without(
        /done as \([\s\S]*?returning result::text as result_json\n\s*\)/,
        "done as (select '{}'::text as result_json from paid)",
      ),
    ],
  ];
  for (const [name, edit] of rows) sides.push([name, replay(edit)]);
  for (const [table, copy, leave] of copies)
    sides.push([
      `${table} copy, ${leave ? copy.replace(/^bench_[a-z]+_no/, 'without ') : 'all (control)'}`,
      replay(into(table, copy)),
    ]);
}
function escape(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// STATEMENT_ONLY (a regular expression) keeps the sides whose names it matches, e.g. 'statement|per place'
if (process.env.STATEMENT_ONLY) {
  const only = new RegExp(process.env.STATEMENT_ONLY);
  sides.splice(0, sides.length, ...sides.filter(([name]) => only.test(name)));
}

// STATEMENT_EXPLAIN=1 prints the plan of each side's statement as executed (EXPLAIN ANALYZE with
// buffers, WAL and trigger times: the foreign keys' checks are `RI_ConstraintTrigger_c_*`)
if (process.env.STATEMENT_EXPLAIN) {
  for (const [name, run] of sides) {
    for (let i = 0; i < 300; i++) await run();
    explaining = true;
    try {
      await run();
    } finally {
      explaining = false;
    }
    console.log(`\n== ${name}\n${explained.join('\n')}`);
  }
}

const wal = new Map<string, number>();
for (const [name, run] of sides) {
  const [before] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  for (let i = 0; i < 200; i++) await run();
  const [d] = await sql<{ bytes: number }[]>`
    select pg_wal_lsn_diff(pg_current_wal_lsn(), ${before!.lsn}::pg_lsn)::int as bytes`;
  wal.set(name, d!.bytes / 200);
}
// STATEMENT_INTERLEAVE=1: one execution at a time, the sides taken in turn (rotating), each
// execution's CPU inside PGlite kept: the medians per side hold under a loaded VM, where whole
// rounds of one side drift with the load
if (process.env.STATEMENT_INTERLEAVE) {
  const total = N * ROUNDS;
  const each = sides.map(() => ({ db: [] as number[], cpu: [] as number[] }));
  for (let i = -Math.min(N, 500); i < total; i++) {
    for (let k = 0; k < sides.length; k++) {
      const s = (k + i + sides.length * 1000) % sides.length;
      pglite.reset();
      const cpu = process.cpuUsage();
      await sides[s]![1]();
      const used = process.cpuUsage(cpu);
      if (i < 0) continue;
      each[s]!.db.push(pglite.ms());
      each[s]!.cpu.push((used.user + used.system) / 1000);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const trimmed = (xs: number[]) =>
    mean([...xs].sort((a, b) => a - b).slice(0, Math.ceil(xs.length * 0.9)));
  console.log(`per execution, ${total} of each side taken in turn, one at a time (ms):`);
  for (const [k, [name]] of sides.entries()) {
    const r = each[k]!;
    const d0 = each[0]!;
    console.log(
      `  ${name.padEnd(44)} in PGlite median ${median(r.db).toFixed(4)} (${(median(r.db) / median(d0.db)).toFixed(3)}x the first), ` +
        `lowest 90 % mean ${trimmed(r.db).toFixed(4)} (${(trimmed(r.db) / trimmed(d0.db)).toFixed(3)}x); ` +
        `process CPU median ${median(r.cpu).toFixed(4)}, WAL ${Math.round(wal.get(name)!)} B`,
    );
  }
  await server.close();
  process.exit(0);
}

const results = new Map<string, { cpu: number[]; db: number[] }>(
  sides.map(([name]) => [name, { cpu: [], db: [] }]),
);
for (let round = 0; round <= ROUNDS; round++) {
  // every other round in reverse order, so no side always runs after the same one
  for (const [name, run] of round % 2 ? [...sides].reverse() : sides) {
    pglite.reset();
    const cpu = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < N) await run();
      }),
    );
    const used = process.cpuUsage(cpu);
    if (round === 0) continue;
    const r = results.get(name)!;
    r.cpu.push((used.user + used.system) / 1000 / N);
    r.db.push(pglite.ms() / N);
  }
}
console.log(
  `per execution, median of ${ROUNDS} rounds of ${N} (${CONCURRENCY} at a time), after one of warm-up:`,
);
for (const [name, r] of results) {
  console.log(
    `  ${name.padEnd(44)} CPU ${median(r.cpu).toFixed(3)} ms, in PGlite ${median(r.db).toFixed(3)} ms, WAL ${Math.round(wal.get(name)!)} B` +
      (process.env.STATEMENT_ONLY ? `; rounds ${r.cpu.map((x) => x.toFixed(3)).join(' ')}` : ''),
  );
}
// each side against the first in the same round (a loaded VM moves whole rounds, not one side)
const [first] = results.values();
for (const [name, r] of [...results].slice(1)) {
  const ratio = (a: number[], b: number[]) => a.map((x, i) => x / b[i]!);
  const cpu = ratio(r.cpu, first!.cpu);
  const db = ratio(r.db, first!.db);
  console.log(
    `  ${name.padEnd(44)} / first side, per round: CPU ${median(cpu).toFixed(3)} ` +
      `(${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)}), in PGlite ${median(db).toFixed(3)} ` +
      `(${Math.min(...db).toFixed(2)}-${Math.max(...db).toFixed(2)}), lower in ${db.filter((x) => x < 1).length} of ${db.length}`,
  );
}
await server.close();
process.exit(0);
