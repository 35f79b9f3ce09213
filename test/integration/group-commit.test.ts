import { randomBytes } from 'node:crypto';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';

/**
 * The embedded database's group commit (src/db/durable-fs.ts), seen on a real PGlite on a real
 * data directory: the file operations that reach the disk are recorded at `node:fs` (PGlite's
 * NODEFS calls them), with Postgres's own fsync requests and the replies the wire pushes, in one
 * log. Postgres's order holds: while a WAL sync it asked for is not done, nothing but WAL writes
 * reaches the disk, no pending fd is closed, and no reply goes out.
 */
const captured: { module?: unknown } = {};
vi.mock('../../src/db/durable-fs.js', async (original) => {
  const real = await original<typeof import('../../src/db/durable-fs.js')>();
  return {
    ...real,
    makeFsyncDurable(module: unknown) {
      captured.module = module;
      return real.makeFsyncDurable(module);
    },
  };
});

/** `extension`: a write of zeros only at or past the file's end (a relation growing). */
type Event = { op: string; file: string; fd?: number; extension?: boolean };
let log: Event[] = [];
let db: Database;
let dir: string;

function fileOf(fd: number): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return `fd ${fd}`;
  }
}
const isWal = (file: string) => path.basename(path.dirname(file)) === 'pg_wal';

/** `fs.writeSync(fd, buffer, offset, length, position)` of zeros only, at or past the end. */
function isExtension(args: unknown[]): boolean {
  const [fd, buffer, offset, length, position] = args as [
    number,
    Uint8Array,
    number,
    number,
    number,
  ];
  const bytes = buffer.subarray(offset, offset + length);
  return bytes.every((b) => b === 0) && position >= fs.fstatSync(fd).size;
}

/** Records every call of `fs[name]` (before it runs), naming its file by fd or path. */
function record(name: keyof typeof fs, by: 'fd' | 'path') {
  const functions = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const original = functions[name]!;
  vi.spyOn(functions, name).mockImplementation((...args: unknown[]) => {
    if (by === 'fd') {
      const fd = args[0] as number;
      const event: Event = { op: name, fd, file: fileOf(fd) };
      if (name === 'writeSync') event.extension = isExtension(args);
      log.push(event);
    } else {
      log.push({ op: name, file: String(args[0]) });
    }
    return original.apply(fs, args);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
  // the suite shares module instances between files (isolate: false): load the database's
  // modules again so that they see the mock above, as test/integration/mcp-hosted-load.test.ts does
  vi.resetModules();
  const { openDatabase } = await import('../../src/db/index.js');
  db = await openDatabase(loadConfig({ DATA_DIR: dir, EMBEDDED_DB_THREAD: 'false' }));
  await db.sql`create table paid (id int primary key, note text)`;
  // Postgres's requests, as they reach the hook
  const { FS } = captured.module as {
    FS: { filesystems: { NODEFS: { stream_ops: Record<string, (s: never) => unknown> } } };
  };
  const ops = FS.filesystems.NODEFS.stream_ops;
  const fsync = ops.fsync!;
  ops.fsync = (s: { nfd?: number }) => {
    if (s.nfd !== undefined) log.push({ op: 'request', fd: s.nfd, file: fileOf(s.nfd) });
    return fsync(s as never);
  };
  for (const name of [
    'writeSync',
    'ftruncateSync',
    'fsyncSync',
    'fdatasyncSync',
    'closeSync',
  ] as const)
    record(name, 'fd');
  for (const name of [
    'truncateSync',
    'renameSync',
    'unlinkSync',
    'rmdirSync',
    'mkdirSync',
    'writeFileSync',
    'symlinkSync',
  ] as const)
    record(name, 'path');
  const push = Readable.prototype.push;
  vi.spyOn(Readable.prototype, 'push').mockImplementation(function (
    this: Readable,
    ...args: Parameters<Readable['push']>
  ) {
    if (this.constructor.name === 'PGliteConnection' && args[0] !== null)
      log.push({ op: 'reply', file: '' });
    return push.apply(this, args);
  });
}, 240_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every step that broke Postgres's order in the log: an empty list when it held. */
function violations(events: Event[]): string[] {
  const pending = new Set<number>();
  const found: string[] = [];
  for (const e of events) {
    const where = `${e.op} ${e.file} with WAL syncs pending on fds ${[...pending].join(',')}`;
    if (e.op === 'request') {
      if (isWal(e.file)) pending.add(e.fd!);
      continue;
    }
    if (e.op === 'fsyncSync' || e.op === 'fdatasyncSync') {
      pending.delete(e.fd!);
      if (!isWal(e.file) && pending.size) found.push(where);
      continue;
    }
    if (e.op === 'closeSync') {
      if (pending.has(e.fd!)) found.push(where);
      continue;
    }
    if (e.op === 'writeSync' && (isWal(e.file) || e.extension)) continue;
    // a write of data to any other file, a truncation, a create, rename or unlink, a reply
    if (pending.size) found.push(where);
  }
  return found;
}

async function logged(run: () => Promise<unknown>): Promise<Event[]> {
  log = [];
  await run();
  const events = log;
  log = [];
  return events;
}

describe('the group commit of the embedded database', () => {
  it('concurrent commits share a WAL sync, and no reply leaves before it', async () => {
    const n = 24;
    const events = await logged(() =>
      Promise.all(
        Array.from({ length: n }, (_, i) => db.sql`insert into paid values (${i}, 'one')`),
      ),
    );
    const requested = events.filter((e) => e.op === 'request' && isWal(e.file)).length;
    const synced = events.filter((e) => e.op === 'fsyncSync' || e.op === 'fdatasyncSync').length;
    const replies = events.filter((e) => e.op === 'reply').length;
    expect(requested).toBeGreaterThanOrEqual(n); // Postgres asked once per commit
    expect(synced).toBeGreaterThan(0);
    expect(synced).toBeLessThan(n);
    expect(replies).toBeGreaterThan(0);
    expect(violations(events)).toEqual([]);
    expect((await db.sql`select count(*)::int as n from paid`)[0]).toEqual({ n });
  });

  it('a table growing among concurrent commits does not sync their WAL early', async () => {
    await db.sql`create table grown (id int primary key, note text)`;
    // 1,800 bytes that do not compress: four rows a page, so every fourth insert grows the table
    const note = (i: number) => randomBytes(900).toString('hex') + String(i);
    const n = 24;
    const events = await logged(() =>
      Promise.all(
        Array.from({ length: n }, (_, i) => db.sql`insert into grown values (${i}, ${note(i)})`),
      ),
    );
    const synced = events.filter((e) => e.op === 'fsyncSync' || e.op === 'fdatasyncSync').length;
    // the heap and its index grew while WAL syncs were pending, and went ahead of them
    let pending = 0;
    let grownWhilePending = 0;
    for (const e of events) {
      if (e.op === 'request' && isWal(e.file)) pending++;
      else if (e.op === 'fsyncSync' || e.op === 'fdatasyncSync') pending = 0;
      else if (e.op === 'writeSync' && e.extension && pending) grownWhilePending++;
    }
    expect(grownWhilePending).toBeGreaterThan(0);
    expect(synced).toBeLessThan(n / 4);
    expect(violations(events)).toEqual([]);
    expect((await db.sql`select count(*)::int as n from grown`)[0]).toEqual({ n });
  });

  it('a checkpoint among concurrent commits writes data files only after their WAL is synced', async () => {
    const big = 'x'.repeat(2000);
    const insert = (from: number) =>
      Array.from(
        { length: 12 },
        (_, i) => db.sql`insert into paid values (${1000 + from + i}, ${big})`,
      );
    const events = await logged(() =>
      Promise.all([
        ...insert(0),
        db.sql`update paid set note = ${big} where id < 24`,
        db.sql`checkpoint`,
        ...insert(100),
        db.sql`checkpoint`,
        ...insert(200),
      ]),
    );
    // the checkpoints did write data files and pg_control, among pending WAL syncs
    expect(events.some((e) => e.op === 'writeSync' && !isWal(e.file))).toBe(true);
    expect(events.some((e) => e.op === 'writeSync' && e.file.endsWith('pg_control'))).toBe(true);
    expect(events.some((e) => e.op === 'request' && !isWal(e.file))).toBe(true);
    expect(violations(events)).toEqual([]);
    expect((await db.sql`select count(*)::int as n from paid`)[0]).toEqual({ n: 24 + 36 });
  });
});
