import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { freshDataDir } from '../helpers/data-dir.js';

/**
 * PGlite runs Postgres single-user, with no checkpointer: left alone the WAL since the last
 * checkpoint grew for the life of the process (on disk, and replayed after a crash). The service
 * checkpoints it itself (src/db/checkpoint.ts).
 */
let db: Database | undefined;
let child: ChildProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await db?.close();
  db = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A DATA_DIR holding the migrated database already (a copy): these check what follows a first
 * start, which test/integration/first-start.test.ts covers (made here, each test synced ~1,200
 * files of the template first, most of a kill -9 test's time under load).
 */
const tmp = async () => {
  const d = await freshDataDir('ckpt-');
  dirs.push(d);
  return d;
};

/** A logger whose lines the test reads. */
function capture() {
  const lines: { msg: string; walBytes?: number; ms?: number; reason?: string }[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) },
  );
  return {
    logger,
    checkpoints: () => lines.filter((l) => l.msg === 'embedded database checkpoint'),
  };
}

const settings = (env: Record<string, string>) => ({
  EMBEDDED_DB_THREAD: 'false',
  EMBEDDED_CHECKPOINT_SECONDS: '0',
  EMBEDDED_CHECKPOINT_CHECK_SECONDS: '0.05',
  ...env,
});

async function redo(sql: Database['sql']): Promise<string> {
  const [r] = await sql<
    { redo: string }[]
  >`select redo_lsn::text as redo from pg_control_checkpoint()`;
  return r!.redo;
}

async function until(cond: () => Promise<boolean> | boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(25);
  }
}

const walFiles = (dir: string) =>
  readdirSync(path.join(dir, 'pg', 'pg_wal')).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;

// The embedded database only (PGlite opened here, never the test tier's database): on the
// Postgres tier this file would run the very same code again, so it runs in `npm test` alone
// (docs/testing.md, "CI's time").
describe.skipIf(ON_POSTGRES)('embedded database checkpoints', () => {
  it('past the WAL size since the last one, a checkpoint runs and is logged', async () => {
    const dir = await tmp();
    const { logger, checkpoints } = capture();
    db = await openDatabase(
      loadConfig(settings({ DATA_DIR: dir, EMBEDDED_CHECKPOINT_WAL_MB: '1' })),
      { logger },
    );
    const { sql } = db;
    await sql`create table paid (n int primary key, pad text)`;
    const before = await redo(sql);
    // ~2 MB of WAL that does not compress (hex of md5s chained)
    await sql`insert into paid select g, (select string_agg(md5((g * 100 + i)::text), '') from generate_series(1, 32) i)
              from generate_series(1, 1000) g`;
    await until(() => checkpoints().length > 0);
    expect(await redo(sql)).not.toBe(before);
    const [line] = checkpoints();
    expect(line!.reason).toBe('wal size');
    expect(line!.walBytes).toBeGreaterThanOrEqual(1024 * 1024);
    expect(line!.ms).toBeGreaterThanOrEqual(0);
    // nothing written since: no more checkpoints however long it waits
    await sleep(300);
    expect(checkpoints()).toHaveLength(1);
  });

  it('by time: one checkpoint after writes, none while idle', async () => {
    const dir = await tmp();
    const { logger, checkpoints } = capture();
    db = await openDatabase(
      loadConfig(
        settings({
          DATA_DIR: dir,
          EMBEDDED_CHECKPOINT_WAL_MB: '0',
          EMBEDDED_CHECKPOINT_SECONDS: '0.2',
        }),
      ),
      { logger },
    );
    await sleep(500);
    expect(checkpoints()).toHaveLength(0);
    await db.sql`create table paid (n int primary key)`;
    await until(() => checkpoints().length === 1);
    expect(checkpoints()[0]!.reason).toBe('time');
    await sleep(500);
    expect(checkpoints()).toHaveLength(1);
  });

  it('old WAL segments are recycled or removed: pg_wal stays bounded however much is written', async () => {
    const dir = await tmp();
    const { logger, checkpoints } = capture();
    db = await openDatabase(
      loadConfig(settings({ DATA_DIR: dir, EMBEDDED_CHECKPOINT_WAL_MB: '4' })),
      { logger },
    );
    const { sql } = db;
    await sql`create table paid (n int primary key)`;
    // each round: a write, then the rest of its 16 MB segment (pg_switch_wal), past the threshold
    const segments = 12;
    for (let n = 1; n <= segments; n++) {
      await sql`insert into paid values (${n})`;
      await sql`select pg_switch_wal()`;
      await until(() => checkpoints().length >= n);
    }
    // min_wal_size (80 MB) is kept for reuse: 5 segments, the current one, one being switched to
    expect(walFiles(dir)).toBeLessThanOrEqual(7);
    expect((await sql`select count(*)::int as n from paid`)[0]).toEqual({ n: segments });
  });

  it('the checker stops on close: no timer left, no query after close', async () => {
    const timers = () =>
      (process as unknown as { getActiveResourcesInfo(): string[] })
        .getActiveResourcesInfo()
        .filter((h) => h === 'Timeout').length;
    const before = timers();
    const dir = await tmp();
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (s: string) => void lines.push(JSON.parse(s)) },
    );
    db = await openDatabase(
      loadConfig(settings({ DATA_DIR: dir, EMBEDDED_CHECKPOINT_WAL_MB: '1' })),
      { logger },
    );
    const closing = db;
    db = undefined;
    await sleep(200);
    await closing.close();
    // a check left scheduled would query the closed connection on its next tick, and warn
    await sleep(300);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('a clean close writes a shutdown checkpoint: the next start replays nothing', async () => {
    const dir = await tmp();
    const config = loadConfig(settings({ DATA_DIR: dir, EMBEDDED_CHECKPOINT_WAL_MB: '0' }));
    db = await openDatabase(config);
    await db.sql`create table paid (n int primary key)`;
    await db.sql`insert into paid select generate_series(1, 20000)`;
    const [end] = await db.sql<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
    await db.close();
    db = await openDatabase(config);
    const [r] = await db.sql<{ redo: string; ckpt: string }[]>`
      select redo_lsn::text as redo, checkpoint_lsn::text as ckpt from pg_control_checkpoint()`;
    expect(r).toEqual({ redo: end!.lsn, ckpt: end!.lsn });
  });

  it('kill -9 right after a checkpoint and in the middle of writes loses nothing acknowledged', async () => {
    const dir = await tmp();
    child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/checkpoint-child.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dir,
        ...settings({ EMBEDDED_CHECKPOINT_WAL_MB: '0.5' }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    let checkpoints = 0;
    const killed = new Promise<void>((resolve, reject) => {
      child!.once('error', reject);
      child!.once('exit', () => resolve());
      createInterface({ input: child!.stdout! }).on('line', (text) => {
        const line = JSON.parse(text) as { acked?: number; msg?: string };
        if (line.acked) acked = line.acked;
        if (line.msg === 'embedded database checkpoint' && ++checkpoints === 2) {
          // right after the second checkpoint, writes still going on
          child!.kill('SIGKILL');
        }
      });
    });
    await killed;
    expect(checkpoints).toBe(2);
    expect(acked).toBeGreaterThan(0);
    db = await openDatabase(loadConfig(settings({ DATA_DIR: dir })));
    const [r] = await db.sql<{ n: number; top: number }[]>`
      select count(*)::int as n, max(n)::int as top from acked`;
    expect(r!.top).toBeGreaterThanOrEqual(acked);
    expect(r!.n).toBe(r!.top);
    // a process of its own loads the database's modules, starts PGlite and commits (each synced)
    // until its checkpoints: past a minute under a load average of 25 on two cores
  }, 150_000);

  it('kill -9 in the middle of a checkpoint (many dirty pages) loses nothing acknowledged (review s29)', async () => {
    const dir = await tmp();
    child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/checkpoint-child.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dir,
        CKPT_CHILD_LOG_LEVEL: 'debug',
        CKPT_CHILD_BULK_MB: '12',
        ...settings({ EMBEDDED_CHECKPOINT_WAL_MB: '4' }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    let bulk = false;
    let started = 0;
    let finished = 0;
    const killed = new Promise<void>((resolve, reject) => {
      child!.once('error', reject);
      child!.once('exit', () => resolve());
      createInterface({ input: child!.stdout! }).on('line', (text) => {
        const line = JSON.parse(text) as { acked?: number; bulk?: boolean; msg?: string };
        if (line.acked) acked = line.acked;
        if (line.bulk) bulk = true;
        if (line.msg === 'embedded database checkpoint') finished++;
        if (line.msg === 'embedded database checkpoint starting' && ++started === 1) {
          // the checkpoint of ~12 MB of dirty pages is under way
          child!.kill('SIGKILL');
        }
      });
    });
    await killed;
    expect(started).toBe(1);
    expect(finished).toBe(0);
    expect(bulk).toBe(true);
    db = await openDatabase(loadConfig(settings({ DATA_DIR: dir })));
    const [r] = await db.sql<{ n: number; top: number }[]>`
      select count(*)::int as n, coalesce(max(n), 0)::int as top from acked`;
    expect(r!.top).toBeGreaterThanOrEqual(acked);
    expect(r!.n).toBe(r!.top);
    const [b] = await db.sql<{ n: number }[]>`select count(*)::int as n from bulk`;
    expect(b!.n).toBe(12 * 320);
    // as the one above, with 12 MB written first
  }, 150_000);
});
