import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { servedDataDir } from '../../src/db/first-start.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { findTemplate, unpackTemplate } from '../../src/db/template.js';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { captureLogs } from '../helpers/logs.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

/**
 * Issue 25: a first start's data directory is made from the migrated template on a thread of its
 * own while the service's modules load (src/db/first-start.ts); openDatabase adopts the lock and
 * the directory. The thread loads the built template module, so these use the built modules.
 */
const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(path.join(tmpdir(), 'first-start-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

type FirstStart = typeof import('../../src/db/first-start.js');
type Db = typeof import('../../src/db/index.js');
type Cfg = typeof import('../../src/config.js');

/** The built modules, one instance each (openDatabase takes what first-start begun). */
async function built(): Promise<{ early: FirstStart; db: Db; config: Cfg }> {
  await ensureBuilt();
  const url = (f: string) => pathToFileURL(path.join(ROOT, 'dist/src', f)).href;
  return {
    early: (await import(url('db/first-start.js'))) as FirstStart,
    db: (await import(url('db/index.js'))) as Db,
    config: (await import(url('config.js'))) as Cfg,
  };
}

/** Every regular file in the tarball, by its path, with its bytes. */
async function tarballFiles(tarball: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      if (header.type === 'file')
        files.set(path.normalize(header.name).replace(/^\//, ''), Buffer.concat(chunks));
      next();
    });
  });
  await pipeline(createReadStream(tarball), createGunzip(), extract);
  return files;
}

describe('where a serving start opens the embedded database, read as the configuration reads it', () => {
  it('DATA_DIR/pg for the serving commands on the embedded database, nothing otherwise', () => {
    expect(servedDataDir('serve', {})).toBe(path.resolve('./data', 'pg'));
    expect(servedDataDir('serve', { DATA_DIR: '' })).toBe(path.resolve('./data', 'pg'));
    expect(servedDataDir('demo', { DATA_DIR: '/srv/m' })).toBe('/srv/m/pg');
    expect(servedDataDir('worker', { DATA_DIR: 'rel', EMBEDDED_DB_IN_MEMORY: 'no' })).toBe(
      path.resolve('rel', 'pg'),
    );
    expect(servedDataDir('serve', { DATABASE_URL: 'postgres://db/market' })).toBeUndefined();
    for (const on of ['true', '1', 'yes', 'bogus'])
      expect(servedDataDir('serve', { EMBEDDED_DB_IN_MEMORY: on })).toBeUndefined();
    for (const c of ['migrate', 'reindex', 'moderate', 'unresolved-payments'])
      expect(servedDataDir(c, {})).toBeUndefined();
  });
});

describe.skipIf(ON_POSTGRES)('the template unpacked', () => {
  it('holds exactly the tarball’s files, each whole, owner-only', async () => {
    const found = await findTemplate();
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const target = path.join(await tempDir(), 'pg');
    await unpackTemplate(found.tarball, target);
    const expected = await tarballFiles(found.tarball);
    const written = (await readdir(target, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.relative(target, path.join(e.parentPath, e.name)))
      .sort();
    expect(written).toEqual([...expected.keys()].sort());
    // the large ones (a 16 MB WAL segment) span many of the unpacked stream's buffers
    expect(Math.max(...[...expected.values()].map((b) => b.length))).toBeGreaterThan(1 << 20);
    for (const name of written)
      expect((await stat(path.join(target, name))).mode & 0o777, name).toBe(0o600);
    for (const [name, bytes] of expected)
      expect(readFileSync(path.join(target, name)).equals(bytes), name).toBe(true);
    expect(existsSync(`${target}.unpacking`)).toBe(false);
  }, 300_000);
});

/**
 * Opens the database with `open` (given the logger) and checks it was made from the template now
 * and holds the migrations; closes it.
 */
async function opensMadeFromTemplate(
  open: (logger: ReturnType<typeof captureLogs>['logger']) => Promise<{
    sql: Database['sql'];
    close: () => Promise<void>;
  }>,
): Promise<void> {
  const logs = captureLogs();
  const db = await open(logs.logger);
  try {
    expect(logs.lines.map((l) => l.msg)).toContain(
      'first start: creating the embedded database from its template',
    );
    const [{ n } = { n: 0 }] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from schema_migrations`;
    expect(n).toBeGreaterThan(0);
  } finally {
    await db.close();
  }
}

/**
 * Records every FileHandle sync from now (node:fs/promises does not export the class: its
 * prototype is taken from a handle): the path it was made under, and whether `target` existed
 * once it was done. `restore` ends the recording.
 */
async function recordSyncs(
  anyFile: string,
  target: string,
): Promise<{ synced: { file: string; made: boolean }[]; restore: () => void }> {
  const probe = await open(anyFile, 'r');
  await probe.close();
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  const sync = proto.sync;
  const synced: { file: string; made: boolean }[] = [];
  const spy = vi.spyOn(proto, 'sync').mockImplementation(async function (this: FileHandle) {
    const file = readlinkSync(`/proc/self/fd/${this.fd}`);
    await sync.call(this);
    synced.push({ file, made: existsSync(target) });
  });
  return { synced, restore: () => spy.mockRestore() };
}

describe.skipIf(ON_POSTGRES)('the template unpacked, after a crash', () => {
  it('every file and every directory made is synced, each directory after what is in it, before the rename makes it the database', async () => {
    const found = await findTemplate();
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const target = path.join(await tempDir(), 'pg');
    const scratch = `${target}.unpacking`;
    const { synced, restore } = await recordSyncs(found.tarball, target);
    try {
      await unpackTemplate(found.tarball, target);
    } finally {
      restore();
    }
    const entries = await readdir(target, { recursive: true, withFileTypes: true });
    const before = (e: { parentPath: string; name: string }) =>
      path.join(scratch, path.relative(target, path.join(e.parentPath, e.name)));
    const files = entries.filter((e) => e.isFile()).map(before);
    const dirs = [scratch, ...entries.filter((e) => e.isDirectory()).map(before)];
    expect(dirs.length).toBeGreaterThan(10);
    const at = (file: string) => synced.findIndex((s) => s.file === file && !s.made);
    for (const file of [...files, ...dirs]) expect(at(file), file).toBeGreaterThanOrEqual(0);
    for (const dir of dirs) {
      const inside = [...files, ...dirs].filter((f) => path.dirname(f) === dir);
      for (const f of inside) expect(at(f), `${f} before ${dir}`).toBeLessThan(at(dir));
    }
    // and the rename itself, once made
    expect(synced.at(-1)).toEqual({ file: path.dirname(target), made: true });
  }, 300_000);

  it('the directories made for DATA_DIR are synced too, before the database is made in them', async () => {
    const found = await findTemplate();
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const root = await tempDir();
    const dataDir = path.join(root, 'made', 'data');
    const target = path.join(dataDir, 'pg');
    const { synced, restore } = await recordSyncs(found.tarball, target);
    try {
      const db = await openDatabase(loadConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: 'false' }));
      await db.close();
    } finally {
      restore();
    }
    // each made one (the entry below it) and the one it was made in (its own entry)
    for (const dir of [dataDir, path.dirname(dataDir), root])
      expect(synced, dir).toContainEqual({ file: dir, made: false });
  }, 300_000);

  it('killed part way, it leaves no database: the next start removes what it left and makes a whole one', async () => {
    const found = await findTemplate();
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    await ensureBuilt();
    const dataDir = await tempDir();
    const target = path.join(dataDir, 'pg');
    // the built unpacking, its syncs held from the 100th on (the files are being written), killed there
    const script = `
      import { open } from 'node:fs/promises';
      const { unpackTemplate } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/src/db/template.js')).href)});
      const probe = await open(${JSON.stringify(found.tarball)}, 'r');
      await probe.close();
      const proto = Object.getPrototypeOf(probe);
      const sync = proto.sync;
      let n = 0;
      proto.sync = function () {
        if (++n < 100) return sync.call(this);
        if (n === 100) process.stdout.write('held\\n');
        return new Promise(() => {});
      };
      await unpackTemplate(${JSON.stringify(found.tarball)}, ${JSON.stringify(target)});`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await Promise.race([
      (async () => {
        while (!out.includes('held')) await once(child.stdout, 'data');
      })(),
      exited.then(() => Promise.reject(new Error('the unpacking ended before it was held'))),
    ]);
    child.kill('SIGKILL');
    await exited;
    // half made, under its scratch name only: nothing a start would take for a database
    expect(existsSync(target)).toBe(false);
    const left = await readdir(`${target}.unpacking`, { recursive: true });
    expect(left.length).toBeGreaterThan(50);
    await opensMadeFromTemplate((logger) =>
      openDatabase(loadConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: 'false' }), { logger }),
    );
    expect(existsSync(`${target}.unpacking`)).toBe(false);
  }, 300_000);
});

describe.skipIf(ON_POSTGRES)('a database made in place (no usable template: initdb)', () => {
  const rowsOfWhole = async (db: Database) => {
    const [{ n } = { n: 0 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from whole`;
    return n;
  };

  it('killed part way, it is discarded by the next start (its marker still there), which makes a whole one', async () => {
    const dataDir = await tempDir();
    const pg = path.join(dataDir, 'pg');
    const noTemplate = path.join(dataDir, 'no-template');
    // a start with no template: PGlite's initdb writes the database in DATA_DIR/pg itself
    const script = path.join(dataDir, 'initdb.mts');
    await writeFile(
      script,
      `const { loadConfig } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/config.ts')).href)});
      const { openDatabase } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/db/index.ts')).href)});
      await openDatabase(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)}, EMBEDDED_DB_THREAD: 'false' }), {
        templateDir: ${JSON.stringify(noTemplate)},
      });
      process.stdout.write('opened\\n');`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = once(child, 'exit');
    // killed once initdb has begun writing the database (PG_VERSION is among its first files):
    // waited for however long a loaded machine takes to get there (the test's timeout is the
    // only bound), never killed on a clock before it began
    let ended = false;
    void exited.then(() => (ended = true));
    while (!existsSync(path.join(pg, 'PG_VERSION'))) {
      expect(out).not.toContain('opened');
      expect(ended, 'the start ended before initdb wrote PG_VERSION').toBe(false);
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    await exited;
    expect(out).not.toContain('opened');
    // half made: what a start took for a database by its PG_VERSION alone, marked as being made
    expect(existsSync(path.join(pg, 'PG_VERSION'))).toBe(true);
    expect(existsSync(`${pg}.creating`)).toBe(true);

    const logs = captureLogs();
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: 'false' }), {
      logger: logs.logger,
      templateDir: noTemplate,
    });
    try {
      expect(logs.lines.map((l) => l.msg)).toContain(
        'first start: creating the embedded database (initdb, a few seconds, only this once)',
      );
      // whole and synced: the marker is gone
      expect(existsSync(`${pg}.creating`)).toBe(false);
      await db.sql`create table whole (x int)`;
      await db.sql`insert into whole values (1)`;
      expect(await rowsOfWhole(db)).toBe(1);
    } finally {
      await db.close();
    }
    // reopened: the same database (not made again)
    const again = await openDatabase(
      loadConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: 'false' }),
      { templateDir: noTemplate },
    );
    try {
      expect(await rowsOfWhole(again)).toBe(1);
    } finally {
      await again.close();
    }
  }, 300_000);

  it('a marker left beside a database is discarded with it; the template then makes a whole one and removes the marker', async () => {
    const dataDir = await tempDir();
    const pg = path.join(dataDir, 'pg');
    await mkdir(pg, { recursive: true });
    await writeFile(path.join(pg, 'PG_VERSION'), '17\n');
    await writeFile(`${pg}.creating`, '');
    await opensMadeFromTemplate((logger) =>
      openDatabase(loadConfig({ DATA_DIR: dataDir, EMBEDDED_DB_THREAD: 'false' }), { logger }),
    );
    expect(existsSync(`${pg}.creating`)).toBe(false);
  }, 300_000);
});

describe.skipIf(ON_POSTGRES)('a first start begun by the process entry', () => {
  it('locks the directory at once, unpacks the template, and the opener adopts both', async () => {
    const { early, db, config } = await built();
    const dataDir = await tempDir();
    const pg = path.join(dataDir, 'pg');
    early.beginFirstStart(pg);
    // taken synchronously, before any callback (module loading holds the event loop)
    expect(JSON.parse(readFileSync(path.join(dataDir, 'embedded-db.pid'), 'utf8'))).toEqual({
      pid: process.pid,
      dir: realpathSync(dataDir),
    });
    // without the adoption this process's own lock would refuse it ("in use by process <self>")
    await opensMadeFromTemplate((logger) =>
      db.openDatabase(config.loadConfig({ DATA_DIR: dataDir }), { logger }),
    );
    expect(existsSync(path.join(dataDir, 'embedded-db.pid'))).toBe(false);
    // taken once
    expect(early.takeFirstStart(pg)).toBeUndefined();
  }, 300_000);

  it('begins nothing on an existing database, nor where another live process holds the lock', async () => {
    const { early } = await built();
    const existing = path.join(await tempDir(), 'pg');
    await mkdir(existing, { recursive: true });
    await writeFile(path.join(existing, 'PG_VERSION'), '17\n');
    early.beginFirstStart(existing);
    expect(early.takeFirstStart(existing)).toBeUndefined();
    // nor on one half made in place (openDatabase discards and makes that one itself)
    const halfMade = path.join(await tempDir(), 'pg');
    await writeFile(`${halfMade}.creating`, '');
    early.beginFirstStart(halfMade);
    expect(early.takeFirstStart(halfMade)).toBeUndefined();
    expect(existsSync(path.join(path.dirname(halfMade), 'embedded-db.pid'))).toBe(false);

    const held = await tempDir();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    try {
      const lock = JSON.stringify({ pid: holder.pid, dir: realpathSync(held) });
      await writeFile(path.join(held, 'embedded-db.pid'), lock);
      early.beginFirstStart(path.join(held, 'pg'));
      expect(early.takeFirstStart(path.join(held, 'pg'))).toBeUndefined();
      expect(await readFile(path.join(held, 'embedded-db.pid'), 'utf8')).toBe(lock);
      expect(existsSync(path.join(held, 'pg.unpacking'))).toBe(false);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 300_000);

  it('gives the lock back when the configuration names another directory', async () => {
    const { early } = await built();
    const dataDir = await tempDir();
    early.beginFirstStart(path.join(dataDir, 'pg'));
    expect(early.takeFirstStart(path.join(dataDir, 'elsewhere'))).toBeUndefined();
    // released once the unpacking is done (nothing is left writing into the directory): waited
    // for as long as the unpacking takes on a loaded machine (the test's timeout is the bound)
    while (existsSync(path.join(dataDir, 'embedded-db.pid')))
      await new Promise((r) => setTimeout(r, 100));
  }, 300_000);
});
