import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { access, cp, mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { embeddedDbHolder, openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { findTemplate, TEMPLATE_DIR } from '../../src/db/template.js';
import { seedListing } from '../helpers/catalog.js';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { captureLogs } from '../helpers/logs.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';

const run = promisify(execFile);
const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(path.join(tmpdir(), 'market-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// The embedded database's data directory (restart, template, lock, reachability): the Postgres tier
// has none, these run in `npm test`.
describe.skipIf(ON_POSTGRES)('embedded database on disk', () => {
  it('keeps a generated operator token out of the log: the log names its file, a terminal is shown it once', async () => {
    const config = loadConfig({
      DATA_DIR: await tempDir(),
      LOG_LEVEL: 'silent',
      IN_PROCESS_WORKER: 'false',
    });
    const shown: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      shown.push(String(chunk));
      return true;
    });
    const logs = captureLogs();
    let runtime;
    try {
      runtime = await createRuntime(config, { logger: logs.logger, terminal: true });
    } finally {
      stderr.mockRestore();
    }
    try {
      const file = path.join(config.DATA_DIR, 'secrets', 'admin.token');
      const token = readFileSync(file, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(32);
      const told = logs.lines.find((l) => String(l.msg).startsWith('operator console:'));
      expect(told?.msg).toContain(file);
      expect(JSON.stringify(logs.lines)).not.toContain(token);
      expect(shown.filter((w) => w.includes(token))).toHaveLength(1);
    } finally {
      await runtime.close();
    }
    // a restart neither logs nor shows it again; without a terminal it is never shown
    const again = captureLogs();
    const restarted = await createRuntime(config, { logger: again.logger, terminal: false });
    await restarted.close();
    expect(again.lines.some((l) => String(l.msg).startsWith('operator console:'))).toBe(false);
  });

  it('keeps every row across a restart on the same DATA_DIR', async () => {
    const config = loadConfig({
      DATA_DIR: await tempDir(),
      LOG_LEVEL: 'silent',
      IN_PROCESS_WORKER: 'false',
      // on disk through the optional database thread (the rest of this file runs the default)
      EMBEDDED_DB_THREAD: 'true',
    });
    const logs = captureLogs();
    const first = await createRuntime(config, { logger: logs.logger });
    // the first start copied the shipped template (global setup or `npm run build` made it)
    expect(logs.lines.map((l) => l.msg)).toContain(
      'first start: creating the embedded database from its template',
    );
    const id = await seedListing(first.deps.sql, first.deps.embedder, {
      title: 'Persistent listing',
      description: 'survives restarts',
      techStack: 'Go',
    });
    await first.close();

    const second = await createRuntime(config, { logger: createLogger(config, 2) });
    const app = await buildApp(config, second.deps);
    try {
      const res = await app.inject({
        url: '/api/v1/search',
        query: { q: 'persistent listing survives restarts' },
      });
      expect(res.json()[0].id).toBe(id);
      const [{ n } = { n: 0 }] = await second.deps.sql<
        { n: number }[]
      >`select count(*) as n from schema_migrations`;
      expect(n).toBeGreaterThan(0);
    } finally {
      await app.close();
      await second.close();
    }
  });
});

// The embedded database's data directory (restart, template, lock, reachability): the Postgres tier
// has none, these run in `npm test`.
describe.skipIf(ON_POSTGRES)('first start from the shipped template', () => {
  it('a fresh data directory is made from the template (no initdb) and serves at once', async () => {
    expect((await findTemplate()).ok).toBe(true);
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', IN_PROCESS_WORKER: 'false' });
    const logs = captureLogs();
    const runtime = await createRuntime(config, { logger: logs.logger });
    const app = await buildApp(config, runtime.deps);
    try {
      const said = logs.lines.map((l) => l.msg);
      expect(said).toContain('first start: creating the embedded database from its template');
      expect(said.join('\n')).not.toMatch(/initdb/);
      // the template holds every migration already: a first start runs none of them
      expect(said).not.toContain('migrations applied');
      expect((await app.inject('/api/v1/health')).statusCode).toBe(200);
      const id = await seedListing(runtime.deps.sql, runtime.deps.embedder, {
        title: 'Template-made listing',
        description: 'stored in a database copied from the template',
        techStack: 'Rust',
      });
      const found = await app.inject({
        url: '/api/v1/search',
        query: { q: 'template-made listing' },
      });
      expect(found.json()[0].id).toBe(id);
      // a real Postgres data directory on disk, owner only, and no scratch directory left behind
      expect(await readFile(path.join(dataDir, 'pg', 'PG_VERSION'), 'utf8')).toMatch(/^\d+/);
      expect((await stat(path.join(dataDir, 'pg'))).mode & 0o777).toBe(0o700);
      await expect(access(path.join(dataDir, 'pg.unpacking'))).rejects.toThrow();
    } finally {
      await app.close();
      await runtime.close();
    }
  });

  it('a template made by another PGlite version is not used: initdb runs, with a warning', async () => {
    const stale = await tempDir();
    await cp(TEMPLATE_DIR, stale, { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(stale, 'manifest.json'), 'utf8'));
    await writeFile(
      path.join(stale, 'manifest.json'),
      JSON.stringify({ ...manifest, pglite: '0.0.1' }),
    );
    expect(await findTemplate(stale)).toMatchObject({ ok: false, reason: 'other_version' });
    // nor one made from other migrations (it holds their tables, not these)
    const otherMigrations = await tempDir();
    await cp(TEMPLATE_DIR, otherMigrations, { recursive: true });
    await writeFile(
      path.join(otherMigrations, 'manifest.json'),
      JSON.stringify({ ...manifest, migrations: 'f'.repeat(64) }),
    );
    expect(await findTemplate(otherMigrations)).toMatchObject({
      ok: false,
      reason: 'other_migrations',
    });

    const dataDir = await tempDir();
    const logs = captureLogs();
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir }), {
      logger: logs.logger,
      templateDir: stale,
    });
    try {
      const warned = logs.lines.find((l) => l.level === 40);
      expect(warned).toMatchObject({
        reason: 'other_version',
        detail: expect.stringMatching(/0\.0\.1/),
      });
      expect(logs.lines.map((l) => l.msg)).toContain(
        'first start: creating the embedded database (initdb, a few seconds, only this once)',
      );
      const [row] = await db.sql`select current_setting('server_version_num')::int as v`;
      expect(row!.v).toBeGreaterThan(150000);
    } finally {
      await db.close();
    }
    // initdb (the template spares every other start it): past a minute under a load average of 25
  }, 180_000);
});

/**
 * What this process listens on, from Linux's socket tables: `tcp <address>:<port>` and
 * `unix <path>` for every listening socket whose descriptor this process holds.
 */
function listeningSockets(): string[] {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // closed since it was listed
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) mine.add(inode);
  }
  const table = (file: string) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/));
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const cols of table(file)) {
      // local_address is hex "ADDR:PORT"; state 0A is LISTEN; column 9 is the inode
      if (cols[3] !== '0A' || !mine.has(cols[9]!)) continue;
      const [hex, port] = cols[1]!.split(':') as [string, string];
      // an IPv4 address is one little-endian word: 0100007F is 127.0.0.1
      const addr =
        hex.length === 8
          ? (hex.match(/../g) ?? [])
              .reverse()
              .map((b) => parseInt(b, 16))
              .join('.')
          : hex;
      found.push(`tcp ${addr}:${parseInt(port, 16)}`);
    }
  }
  for (const cols of table('/proc/net/unix')) {
    // flag 00010000 (__SO_ACCEPTCON) marks a listening socket; column 6 is the inode
    if ((parseInt(cols[3]!, 16) & 0x10000) === 0 || !mine.has(cols[6]!)) continue;
    found.push(`unix ${cols[7] ?? '(unnamed)'}`);
  }
  return found;
}

// The embedded database's data directory (restart, template, lock, reachability): the Postgres tier
// has none, these run in `npm test`.
describe.skipIf(ON_POSTGRES)('embedded database access', () => {
  it.runIf(process.platform === 'linux')(
    'no other process can reach it: the service listens on its HTTP port and nothing else',
    async () => {
      const dataDir = await tempDir();
      const config = loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        IN_PROCESS_WORKER: 'false',
      });
      const before = new Set(listeningSockets());
      const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
      const app = await buildApp(config, runtime.deps);
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.server.address() as { port: number };
        const [row] = await runtime.deps.sql`select count(*)::int as n from schema_migrations`;
        expect(row!.n).toBeGreaterThan(0); // the service itself reaches its database
        const opened = listeningSockets().filter((s) => !before.has(s));
        expect(opened).toEqual([`tcp 127.0.0.1:${port}`]); // the HTTP port, nothing else
        // the files: owner only, as Postgres itself demands of its data directory
        expect((await stat(path.join(dataDir, 'pg'))).mode & 0o777).toBe(0o700);
      } finally {
        await app.close();
        await runtime.close();
      }
    },
  );
});

// The embedded database's data directory (restart, template, lock, reachability): the Postgres tier
// has none, these run in `npm test`.
describe.skipIf(ON_POSTGRES)('embedded database lock', () => {
  it('a second process on the same DATA_DIR is refused; a dead owner’s lock is taken over', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = await openDatabase(config);
    try {
      await expect(openDatabase(config)).rejects.toThrow(
        new RegExp(`in use by process ${process.pid}`),
      );
    } finally {
      await first.close();
    }
    // a crashed owner leaves its pid file behind (the pid of a child that has exited)
    await writeFile(path.join(dataDir, 'embedded-db.pid'), String(spawnSync('true').pid));
    const again = await openDatabase(config);
    const [row] = await again.sql`select 1 as ok`;
    expect(row!.ok).toBe(1);
    await again.close();
  });
});

describe.skipIf(ON_POSTGRES)('a copy of a live data directory', () => {
  it('is not held by the original’s process: it opens, while the original stays locked', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    const live = await openDatabase(config);
    try {
      await live.sql`create table copied (x int)`;
      await live.sql`insert into copied values (7)`;
      await live.sql`checkpoint`;
      // a backup taken with `cp -a` while the service runs carries the lock file along
      const copyDir = await tempDir();
      await cp(dataDir, copyDir, { recursive: true });
      expect(await readFile(path.join(copyDir, 'embedded-db.pid'), 'utf8')).toContain(
        String(process.pid),
      );
      const copyConfig = loadConfig({ DATA_DIR: copyDir });
      expect(await embeddedDbHolder(copyConfig)).toBeUndefined();
      const copy = await openDatabase(copyConfig);
      try {
        const [row] = await copy.sql`select x from copied`;
        expect(row!.x).toBe(7);
      } finally {
        await copy.close();
      }
      // the original is still held: a second opener there is refused
      await expect(openDatabase(config)).rejects.toThrow(/in use by process/);
    } finally {
      await live.close();
    }
  });
});

describe('migrator', () => {
  it('applies files in order once, and rolls back a failing file entirely', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'm'));
    await writeFile(path.join(dir, 'm', '001_a.sql'), 'create table a (x int);');
    await writeFile(
      path.join(dir, 'm', '002_b.sql'),
      'create table b (x int); insert into nope values (1);',
    );
    // an empty database: in memory, or on the Postgres tier one of the cluster
    // (the embedded one from initdb, not from the shipped template, which holds the migrations)
    const db = await openDatabase(
      loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...(await databaseEnv({ empty: true })) }),
      { templateDir: path.join(dir, 'no-template') },
    );
    try {
      await expect(migrate(db.sql, path.join(dir, 'm'))).rejects.toThrow(/nope/);
      const names = (
        await db.sql<{ name: string }[]>`select name from schema_migrations order by name`
      ).map((r) => r.name);
      expect(names).toEqual(['001_a.sql']);
      const [b] = await db.sql`select to_regclass('b') as t`;
      expect(b!.t).toBeNull(); // the failing file left nothing behind
      await writeFile(path.join(dir, 'm', '002_b.sql'), 'create table b (x int);');
      const again = await migrate(db.sql, path.join(dir, 'm'));
      expect(again).toEqual({ applied: ['002_b.sql'], skipped: ['001_a.sql'] });
    } finally {
      await db.close();
    }
    // an empty embedded database is an initdb (in memory), as long as the one above
  }, 180_000);

  it('`npm run migrate` exits 0 on success and non-zero, listing every problem, on bad config', async () => {
    const env = {
      ...process.env,
      DATA_DIR: await tempDir(),
      LOG_LEVEL: 'silent',
      // on the Postgres tier: an empty database, which the command gives its extensions and tables
      ...(await databaseEnv({ empty: true })),
    };
    // the script's own command line (the built entry, under its node flags) without npm's start;
    // the source entry runs in the operator command tests (operator-cli-output, operator-terminal)
    await ensureBuilt();
    const scripts = (
      JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
        scripts: { migrate: string };
      }
    ).scripts;
    expect(scripts.migrate).toMatch(/ dist\/src\/main\.js migrate$/);
    const npmRunMigrate = (childEnv: NodeJS.ProcessEnv) =>
      run('/bin/sh', ['-c', scripts.migrate], { cwd: ROOT, env: childEnv });
    // both at once: each is mostly module loading, which a loaded machine gives two processes more of
    const [good, bad] = await Promise.all([
      npmRunMigrate(env),
      npmRunMigrate({ ...env, PORT: 'abc', LOG_LEVEL: 'loud' }).catch(
        (e: { code: number; stderr: string }) => e,
      ),
    ]);
    expect(JSON.parse(good.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      applied: expect.any(Array),
    });
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/PORT/);
    expect((bad as { stderr: string }).stderr).toMatch(/LOG_LEVEL/);
  });
});
