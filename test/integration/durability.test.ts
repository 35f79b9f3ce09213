import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

/**
 * The embedded database on disk acknowledges a commit only once its WAL is on the disk: Postgres
 * runs with fsync on and the file system under it really flushes the WAL segment, with
 * fdatasync(2) (`fs.fdatasyncSync`) as Postgres flushes its WAL on Linux, and every other file
 * with fsync(2). Without it PGlite's `-F` and its fsync-less NODEFS left acknowledged payments in
 * the page cache, lost on a power cut.
 */
let db: Database | undefined;
let dir: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await db?.close();
  db = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(env: Record<string, string>) {
  dir = mkdtempSync(path.join(tmpdir(), 'durable-'));
  db = await openDatabase(loadConfig({ DATA_DIR: dir, EMBEDDED_DB_THREAD: 'false', ...env }));
  return db.sql;
}

/** The files flushed to disk while `commit` runs (fsync or fdatasync). */
async function fsyncedDuring(commit: () => Promise<unknown>): Promise<string[]> {
  const { fsync, fdatasync } = await syncedDuring(commit);
  return [...fsync, ...fdatasync];
}

/** The files fsync'ed and those fdatasync'ed while `commit` runs. */
async function syncedDuring(
  commit: () => Promise<unknown>,
): Promise<{ fsync: string[]; fdatasync: string[] }> {
  const full = vi.spyOn(fs, 'fsyncSync');
  const data = vi.spyOn(fs, 'fdatasyncSync');
  await commit();
  const fileOf = ([fd]: unknown[]) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd as number}`);
    } catch {
      return `fd ${String(fd)}`;
    }
  };
  const files = { fsync: full.mock.calls.map(fileOf), fdatasync: data.mock.calls.map(fileOf) };
  full.mockRestore();
  data.mockRestore();
  return files;
}

const inWal = (f: string) => f.includes(`${path.sep}pg_wal${path.sep}`);

// The embedded database only (PGlite opened here, never the test tier's database): on the
// Postgres tier this file would run the very same code again, so it runs in `npm test` alone
// (docs/testing.md, "CI's time").
describe.skipIf(ON_POSTGRES)('embedded database durability', () => {
  it('by default a commit on disk fsyncs its WAL before it is acknowledged', async () => {
    const sql = await open({});
    expect((await sql`show fsync`)[0]).toEqual({ fsync: 'on' });
    expect((await sql`show synchronous_commit`)[0]).toEqual({ synchronousCommit: 'on' });
    await sql`create table paid (id int primary key)`;
    const files = await fsyncedDuring(() => sql`insert into paid values (1)`);
    expect(files.some(inWal)).toBe(true);
  });

  it("flushes the WAL with fdatasync, as Postgres does on Linux, and a checkpoint's files with fsync", async () => {
    const sql = await open({});
    await sql`create table paid (id int primary key)`;
    // a commit: its WAL segment's data (and the size or blocks needed to read it back), not its
    // timestamps, whose journal commit fsync would also wait for
    const commit = await syncedDuring(() => sql`insert into paid values (1)`);
    expect(commit.fdatasync.some(inWal)).toBe(true);
    expect(commit.fsync.filter(inWal)).toEqual([]);
    // a checkpoint: the data files and pg_control keep fsync
    const checkpoint = await syncedDuring(() => sql`checkpoint`);
    expect(checkpoint.fsync.some((f) => !inWal(f))).toBe(true);
    expect(checkpoint.fdatasync.filter((f) => !inWal(f))).toEqual([]);
  });

  it('a sync that fails acknowledges nothing, and the database refuses what follows', async () => {
    // in process (EMBEDDED_DB_THREAD=false, as open() sets): the worker thread runs the same hook
    const sql = await open({});
    await sql`create table paid (id int primary key)`;
    const eio = () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    };
    const failing = [
      vi.spyOn(fs, 'fsyncSync').mockImplementation(eio),
      vi.spyOn(fs, 'fdatasyncSync').mockImplementation(eio),
    ];
    await expect(sql`insert into paid values (1)`).rejects.toThrow();
    for (const spy of failing) spy.mockRestore();
    await expect(sql`select 1`).rejects.toThrow(/could not sync a file to disk/);
    // what the database holds in memory may not be on disk: it is not served again
    const dead = db!;
    db = undefined;
    await dead.close().catch(() => undefined);
  });

  it('EMBEDDED_DB_FSYNC=false: commits reach the operating system only', async () => {
    const sql = await open({ EMBEDDED_DB_FSYNC: 'false' });
    expect((await sql`show fsync`)[0]).toEqual({ fsync: 'off' });
    await sql`create table paid (id int primary key)`;
    expect(await fsyncedDuring(() => sql`insert into paid values (1)`)).toEqual([]);
  });
});

describe.skipIf(ON_POSTGRES)('archive bytes', () => {
  it('the filesystem blob store flushes an archive to the disk before the listing can commit', async () => {
    const { FsBlobStore } = await import('../../src/storage/fs-store.js');
    dir = mkdtempSync(path.join(tmpdir(), 'durable-blobs-'));
    const store = new FsBlobStore(dir);
    const spy = vi.spyOn(fs, 'fsync');
    await store.put('archives/a.zip', Buffer.from('PK\x03\x04 bytes'));
    expect(spy).toHaveBeenCalled();
    expect(fs.readFileSync(path.join(dir, 'archives', 'a.zip')).toString()).toContain('bytes');
  });
});

describe.skipIf(ON_POSTGRES)('a restart', () => {
  it('on an up-to-date data directory commits nothing, so it waits for no fsync', async () => {
    const { createRuntime } = await import('../../src/runtime.js');
    dir = mkdtempSync(path.join(tmpdir(), 'durable-restart-'));
    const config = loadConfig({
      DATA_DIR: dir,
      EMBEDDED_DB_THREAD: 'false',
      LOG_LEVEL: 'silent',
      IN_PROCESS_WORKER: 'false',
    });
    await (await createRuntime(config)).close();
    let runtime: Awaited<ReturnType<typeof createRuntime>> | undefined;
    const files = await fsyncedDuring(async () => (runtime = await createRuntime(config)));
    await runtime!.close();
    expect(files).toEqual([]);
  });
});
