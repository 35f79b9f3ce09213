import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { seedListing } from '../helpers/catalog.js';

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

describe('embedded database on disk', () => {
  it('keeps every row across a restart on the same DATA_DIR', async () => {
    const config = loadConfig({
      DATA_DIR: await tempDir(),
      LOG_LEVEL: 'silent',
      IN_PROCESS_WORKER: 'false',
    });
    const first = await createRuntime(config, { logger: createLogger(config, 2) });
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

describe('embedded database lock', () => {
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

describe('migrator', () => {
  it('applies files in order once, and rolls back a failing file entirely', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'm'));
    await writeFile(path.join(dir, 'm', '001_a.sql'), 'create table a (x int);');
    await writeFile(
      path.join(dir, 'm', '002_b.sql'),
      'create table b (x int); insert into nope values (1);',
    );
    const db = await openDatabase(loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true' }));
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
  });

  it('`npm run migrate` exits 0 on success and non-zero, listing every problem, on bad config', async () => {
    const env = { ...process.env, DATA_DIR: await tempDir(), LOG_LEVEL: 'silent' };
    const tsx = path.resolve('node_modules/.bin/tsx');
    await run(tsx, ['src/main.ts', 'migrate'], { env });
    const bad = await run(tsx, ['src/main.ts', 'migrate'], {
      env: { ...env, PORT: 'abc', LOG_LEVEL: 'loud' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/PORT/);
    expect((bad as { stderr: string }).stderr).toMatch(/LOG_LEVEL/);
  });
});
