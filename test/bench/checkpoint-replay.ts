/**
 * What the embedded database's own checkpoints (src/db/checkpoint.ts) bound: the app in a child
 * process on a data directory on disk (as served) takes CKPT_N (6000) paid repeat-buyer
 * completions with EMBEDDED_CHECKPOINT_WAL_MB=CKPT_MB (64; 0: no checkpoints, as before), is
 * killed with SIGKILL, and the database is reopened here: pg_wal's size, the WAL since the last
 * checkpoint's redo point, the reopen time after the kill (a crash replay) and after a clean stop,
 * each checkpoint's duration and the WAL and full-page images per completion over the run.
 *   CKPT_MB=0 node --import tsx test/bench/checkpoint-replay.ts
 *   CKPT_MB=8 node --import tsx test/bench/checkpoint-replay.ts
 * With CKPT_DIRTY=1 instead: one checkpoint's duration with all 16 MB of shared_buffers dirty.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';

const N = Number(process.env.CKPT_N ?? 6000);
const MB = process.env.CKPT_MB ?? '64';

const walSize = (dataDir: string) => {
  const dir = path.join(dataDir, 'pg', 'pg_wal');
  const files = readdirSync(dir).filter((f) => /^[0-9A-F]{24}$/.test(f));
  return {
    files: files.length,
    mb: files.reduce((s, f) => s + statSync(path.join(dir, f)).size, 0) / 2 ** 20,
  };
};

async function timedOpen(dataDir: string) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const db = await openDatabase(
    loadConfig({
      DATA_DIR: dataDir,
      EMBEDDED_DB_THREAD: 'false',
      EMBEDDED_CHECKPOINT_WAL_MB: '0',
      EMBEDDED_CHECKPOINT_SECONDS: '0',
    }),
  );
  const ms = Math.round(performance.now() - t);
  const c = process.cpuUsage(cpu);
  const [r] = await db.sql<{ orders: number }[]>`select count(*)::int as orders from orders`;
  await db.close();
  return { ms, cpuMs: Math.round((c.user + c.system) / 1000), orders: r!.orders };
}

if (process.env.CKPT_ROLE === 'child') {
  const { newWallet, signHeaders } = await import('../helpers/wallets.js');
  const { Driver } = await import('./load.js');
  const { paidServer } = await import('./paid-server.js');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-ckpt-'));
  const server = await paidServer({
    onDisk: true,
    env: {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      EMBEDDED_CHECKPOINT_WAL_MB: MB,
      EMBEDDED_CHECKPOINT_CHECK_SECONDS: '1',
    },
  });
  const { sql, url, required } = server;
  const requirement = required.accepts[0]!;
  const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
  const buyers = Array.from({ length: 40 }, () => newWallet());
  const driver = await Driver.start(8);
  const buy = async (n: number) => {
    const r = await driver.round(url, await signHeaders(buyers, required, requirement, n), body);
    if (r.failures) throw new Error(`failures: ${JSON.stringify(r.statuses)}`);
  };
  await buy(buyers.length); // their first purchases
  const wal = async () =>
    (
      await sql<{ bytes: number; fpi: number }[]>`
      select wal_bytes::int8 as bytes, wal_fpi::int8 as fpi from pg_stat_wal`
    )[0]!;
  await sql`select pg_stat_force_next_flush()`;
  const w0 = await wal();
  const t0 = performance.now();
  for (let done = 0; done < N; done += 500) await buy(Math.min(500, N - done));
  const seconds = (performance.now() - t0) / 1000;
  await sql`select pg_stat_force_next_flush()`;
  await sql`select 1`;
  const w1 = await wal();
  const [since] = await sql<{ bytes: number }[]>`
    select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::int8 as bytes from pg_control_checkpoint()`;
  console.log(
    JSON.stringify({
      done: true,
      dataDir,
      seconds,
      sinceRedoMb: since!.bytes / 2 ** 20,
      walPerCompletion: (w1.bytes - w0.bytes) / N,
      fpiPerCompletion: (w1.fpi - w0.fpi) / N,
    }),
  );
  driver.stop();
  await new Promise(() => {}); // killed here
} else if (process.env.CKPT_DIRTY) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-ckpt-'));
  const db = await openDatabase(
    loadConfig({
      DATA_DIR: dataDir,
      EMBEDDED_DB_THREAD: 'false',
      EMBEDDED_CHECKPOINT_WAL_MB: '0',
      EMBEDDED_CHECKPOINT_SECONDS: '0',
    }),
  );
  const { sql } = db;
  // ~13 MB of heap (under shared_buffers' 16 MB; half-full pages, so updates stay on their page),
  // then every page of it dirtied, then one checkpoint writes them
  await sql`create table dirty (n int primary key, pad text) with (fillfactor = 50)`;
  await sql`insert into dirty select g, repeat('x', 400) from generate_series(1, 15000) g`;
  await sql`checkpoint`;
  for (let round = 0; round < 3; round++) {
    await sql`update dirty set pad = repeat(${String(round)}, 400)`;
    const t = performance.now();
    await sql`checkpoint`;
    const ms = performance.now() - t;
    const [size] = await sql<{ mb: number }[]>`
      select (pg_relation_size('dirty') + pg_relation_size('dirty_pkey'))::float8 / 1048576 as mb`;
    console.log(
      `checkpoint after updating every row of ${size!.mb.toFixed(1)} MB: ${ms.toFixed(0)} ms`,
    );
  }
  await db.close();
} else {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/checkpoint-replay.ts'], {
    env: { ...process.env, CKPT_ROLE: 'child' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const checkpoints: { walBytes: number; ms: number }[] = [];
  createInterface({ input: child.stderr }).on('line', (text) => {
    if (!text.startsWith('{')) return void process.stderr.write(`${text}\n`);
    const line = JSON.parse(text) as { msg?: string; walBytes: number; ms: number; level: number };
    if (line.msg === 'embedded database checkpoint') checkpoints.push(line);
    else if (line.level >= 40) process.stderr.write(`${text}\n`);
  });
  const result = await new Promise<Record<string, number | string>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    createInterface({ input: child.stdout }).on('line', (text) => {
      if (text.startsWith('{"done"')) resolve(JSON.parse(text) as Record<string, number | string>);
    });
  });
  child.removeAllListeners('exit');
  const dataDir = String(result.dataDir);
  const wal = walSize(dataDir);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  const crash = await timedOpen(dataDir);
  const clean = await timedOpen(dataDir);
  const ms = checkpoints.map((c) => c.ms).sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        completions: N,
        EMBEDDED_CHECKPOINT_WAL_MB: MB,
        runSeconds: Number(result.seconds).toFixed(1),
        checkpoints: checkpoints.length,
        checkpointMs: ms.length ? { min: ms[0], median: ms[ms.length >> 1], max: ms.at(-1) } : null,
        walPerCompletion: Math.round(Number(result.walPerCompletion)),
        fpiPerCompletion: Number(result.fpiPerCompletion).toFixed(3),
        sinceRedoMb: Number(result.sinceRedoMb).toFixed(1),
        pgWal: { files: wal.files, mb: Math.round(wal.mb) },
        reopenAfterKill: crash,
        reopenAfterCleanStop: clean,
      },
      null,
      1,
    ),
  );
}
process.exit(0);
