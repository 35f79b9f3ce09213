/**
 * What one paid completion writes inside the embedded database, repeat and first-time buyers
 * apart: the app in process on a data directory on disk (as served), warmed up, then per
 * completion the WAL (`pg_stat_wal`: records, full-page images, bytes), the tuples inserted /
 * updated / HOT-updated per table, the index scans and size growth per index, and checkpoints:
 *   node --import tsx test/bench/payments-wal.ts
 * WAL_N (600) completions per kind, WAL_WARMUP (600) per kind before; WAL_DDL (`;`-separated)
 * runs before the item is created (e.g. a setting to compare).
 */
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { Driver } from './load.js';
import { paidServer } from './paid-server.js';

const N = Number(process.env.WAL_N ?? 600);
const WARMUP = Number(process.env.WAL_WARMUP ?? 600);
const server = await paidServer({ onDisk: true, ddl: process.env.WAL_DDL });
const { sql, url, required } = server;
const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
const requirement = required.accepts[0]!;
const repeatBuyers = Array.from({ length: 40 }, () => newWallet());
const driver = await Driver.start(8);

const settings = await sql<{ name: string; setting: string; unit: string | null }[]>`
  select name, setting, unit from pg_settings
  where name in ('checkpoint_timeout', 'max_wal_size', 'min_wal_size', 'full_page_writes',
                 'wal_level', 'wal_buffers', 'wal_sync_method', 'fsync', 'synchronous_commit',
                 'shared_buffers', 'wal_compression', 'wal_init_zero', 'wal_recycle',
                 'track_counts', 'wal_segment_size')`;
console.log(
  'settings:',
  settings.map((s) => `${s.name}=${s.setting}${s.unit ? ` ${s.unit}` : ''}`).join(', '),
);

async function snapshot() {
  // this backend's own counters reach the shared statistics when flushed
  await sql`select pg_stat_force_next_flush()`;
  await sql`select 1`;
  const [wal] = await sql<{ walRecords: number; walFpi: number; walBytes: number }[]>`
    select wal_records::int8 as wal_records, wal_fpi::int8 as wal_fpi, wal_bytes::int8 as wal_bytes
    from pg_stat_wal`;
  const [ckpt] = await sql<{ timed: number; requested: number; written: number }[]>`
    select num_timed::int8 as timed, num_requested::int8 as requested,
           buffers_written::int8 as written from pg_stat_checkpointer`;
  const tables = await sql<
    { relname: string; ins: number; upd: number; hot: number; del: number; size: number }[]
  >`select relname, n_tup_ins::int8 as ins, n_tup_upd::int8 as upd, n_tup_hot_upd::int8 as hot,
           n_tup_del::int8 as del, pg_relation_size(relid)::int8 as size
    from pg_stat_user_tables`;
  const indexes = await sql<
    {
      relname: string;
      indexrelname: string;
      scans: number;
      size: number;
      predicate: string | null;
      kept?: number;
    }[]
  >`select s.relname, s.indexrelname, s.idx_scan::int8 as scans,
           pg_relation_size(s.indexrelid)::int8 as size, pg_get_expr(i.indpred, i.indrelid) as predicate
    from pg_stat_user_indexes s join pg_index i on i.indexrelid = s.indexrelid`;
  // a partial index takes an entry only for a row its predicate keeps: count those rows
  for (const i of indexes.filter((x) => x.predicate)) {
    const [c] = await sql.unsafe<{ n: number }[]>(
      `select count(*)::int8 as n from ${i.relname} where ${i.predicate}`,
    );
    i.kept = c!.n;
  }
  const [lsn] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  return { wal: wal!, ckpt: ckpt!, tables, indexes, lsn: lsn!.lsn };
}
type Snap = Awaited<ReturnType<typeof snapshot>>;

function report(kind: string, a: Snap, b: Snap, n: number) {
  const per = (x: number) => (x / n).toFixed(2);
  console.log(`\n${kind}: ${n} completions`);
  console.log(
    `  WAL per completion: ${per(b.wal.walRecords - a.wal.walRecords)} records, ` +
      `${per(b.wal.walFpi - a.wal.walFpi)} full-page images, ` +
      `${Math.round((b.wal.walBytes - a.wal.walBytes) / n)} bytes; ` +
      `checkpoints timed ${b.ckpt.timed - a.ckpt.timed}, requested ${b.ckpt.requested - a.ckpt.requested}`,
  );
  for (const t of b.tables) {
    const o = a.tables.find((x) => x.relname === t.relname)!;
    const d = {
      ins: t.ins - o.ins,
      upd: t.upd - o.upd,
      hot: t.hot - o.hot,
      del: t.del - o.del,
      size: t.size - o.size,
    };
    if (!d.ins && !d.upd && !d.del) continue;
    console.log(
      `  ${t.relname.padEnd(28)} ins ${per(d.ins)} upd ${per(d.upd)} (hot ${per(d.hot)}) del ${per(d.del)}, heap +${Math.round(d.size / n)} B`,
    );
  }
  for (const i of b.indexes) {
    const o = a.indexes.find((x) => x.indexrelname === i.indexrelname)!;
    const scans = i.scans - o.scans;
    const grew = i.size - o.size;
    const written = b.tables.find((t) => t.relname === i.relname)!;
    const ot = a.tables.find((t) => t.relname === i.relname)!;
    const touched =
      i.kept !== undefined
        ? i.kept - o.kept!
        : written.ins - ot.ins + (written.upd - ot.upd) - (written.hot - ot.hot);
    // (the snapshot's own counts scan a partial index once each)
    if (scans <= 1 && !grew && !touched) continue;
    console.log(
      `    ${i.indexrelname.padEnd(44)} on ${i.relname.padEnd(22)} scans ${per(scans)}, entries ${per(touched)}${i.predicate ? ' (partial)' : ''}, +${Math.round(grew / n)} B`,
    );
  }
}

const fresh = (n: number) => Array.from({ length: n }, () => newWallet());
async function buy(wallets: ReturnType<typeof newWallet>[], n: number) {
  const headers = await signHeaders(wallets, required, requirement, n);
  const r = await driver.round(url, headers, body);
  if (r.failures) throw new Error(`failures: ${JSON.stringify(r.statuses)}`);
}
// warm-up: the repeat buyers' first purchases, then both kinds
await buy(repeatBuyers, repeatBuyers.length);
await buy(repeatBuyers, WARMUP);
const newcomers = fresh(WARMUP + N);

await buy(newcomers.slice(0, WARMUP), WARMUP);

const s0 = await snapshot();
await buy(repeatBuyers, N);
const s1 = await snapshot();
await buy(newcomers.slice(WARMUP), N);
const s2 = await snapshot();
// what the snapshot itself writes (its own statements, no completion)
const s3 = await snapshot();
report('repeat buyer', s0, s1, N);
report('first-time buyer', s1, s2, N);
console.log(
  `\nthe snapshot alone: ${s3.wal.walRecords - s2.wal.walRecords} records, ${s3.wal.walBytes - s2.wal.walBytes} bytes`,
);
const [since] = await sql<{ bytes: number; timed: number; requested: number }[]>`
  select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::int8 as bytes,
         (select num_timed::int8 from pg_stat_checkpointer) as timed,
         (select num_requested::int8 from pg_stat_checkpointer) as requested
  from pg_control_checkpoint()`;
console.log(
  `WAL since the last checkpoint's redo point: ${since!.bytes} bytes; checkpoints since start: timed ${since!.timed}, requested ${since!.requested}`,
);
// what the first writes after a checkpoint cost: every page first touched gets a full-page image
await sql`checkpoint`;
const c0 = await snapshot();
await buy(repeatBuyers, N);
const c1 = await snapshot();
console.log(
  `right after a checkpoint, repeat buyers: ${((c1.wal.walFpi - c0.wal.walFpi) / N).toFixed(2)} full-page images, ` +
    `${Math.round((c1.wal.walBytes - c0.wal.walBytes) / N)} bytes per completion (${N})`,
);
driver.stop();
await server.close();
process.exit(0);
