import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { migrate, migrationError, MIGRATIONS_DIR, SCHEMA_LOCK_KEY } from '../../src/db/migrate.js';
import { ensureVectorIndex, indexName } from '../../src/domain/search/vectors.js';
import { databaseEnv, freshDatabase, ON_POSTGRES } from '../helpers/postgres.js';

/**
 * Several processes start together (replicas, workers, `npm run migrate`): each migration file must
 * be applied once and nobody may fail. The embedded database has one session, so it only checks
 * the bookkeeping; the catalog races (two `create … if not exists` on an empty schema) only exist
 * on a real server: set TEST_DATABASE_URL (a database whose owner may create schemas, with the
 * vector and pg_trgm extensions installed) to run that part too; the Postgres tier
 * (`npm run test:postgres`) runs it on a fresh database of its cluster.
 */
const SERVER_URL =
  process.env.TEST_DATABASE_URL ?? (ON_POSTGRES ? await freshDatabase() : undefined);

// the embedded database's single session; the Postgres tier runs the server race below instead
describe.skipIf(ON_POSTGRES)('concurrent migrators (embedded)', () => {
  let db: Database;
  beforeAll(async () => {
    // from initdb: the shipped template already holds every migration
    db = await openDatabase(loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true' }), {
      templateDir: path.join(tmpdir(), 'no-template-here'),
    });
  });
  afterAll(() => db?.close());

  it('apply each file exactly once and create the vector index once', async () => {
    const results = await Promise.all([migrate(db.sql), migrate(db.sql), migrate(db.sql)]);
    const applied = results.flatMap((r) => r.applied).sort();
    const [{ n } = { n: 0 }] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from schema_migrations`;
    expect(applied).toHaveLength(n);
    expect(new Set(applied).size).toBe(n);
    await Promise.all([ensureVectorIndex(db.sql, 32), ensureVectorIndex(db.sql, 32)]);
    const idx = await db.sql`select 1 from pg_indexes where indexname = ${indexName(32)}`;
    expect(idx).toHaveLength(1);
  });
});

describe('a failing migration', () => {
  it('names its file, rolls back, and tells the operator how to install the extensions', async () => {
    const db = await openDatabase(
      loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...(await databaseEnv({ empty: true })) }),
    );
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    try {
      await writeFile(
        path.join(dir, '900_bad.sql'),
        'create table half_done (id int); select * from no_such_table;',
      );
      await expect(migrate(db.sql, dir)).rejects.toThrow(
        /^migration 900_bad\.sql failed: relation "no_such_table" does not exist$/,
      );
      expect(await db.sql`select 1 from pg_tables where tablename = 'half_done'`).toHaveLength(0);
      expect(await db.sql`select 1 from schema_migrations where name = '900_bad.sql'`).toHaveLength(
        0,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
      await db.close();
    }
    // what a non-superuser gets from `create extension vector` on a real server
    const denied = Object.assign(new Error('permission denied to create extension "vector"'), {
      code: '42501',
    });
    expect(migrationError('001_foundation.sql', denied).message).toMatch(
      /as a superuser.*create extension if not exists vector;/,
    );
    expect(migrationError('001_foundation.sql', denied).cause).toBe(denied);
  });
});

describe.skipIf(!SERVER_URL)('concurrent migrators (real Postgres at TEST_DATABASE_URL)', () => {
  const schema = `migrate_race_${randomBytes(4).toString('hex')}`;
  const clients: postgres.Sql[] = [];
  let admin: postgres.Sql;
  beforeAll(async () => {
    admin = postgres(SERVER_URL!, { onnotice: () => {} });
    await admin.unsafe(`create schema ${schema}`);
    for (let i = 0; i < 6; i++) {
      clients.push(
        postgres(SERVER_URL!, {
          onnotice: () => {},
          max: 2,
          connection: { search_path: `${schema},public` },
        }),
      );
    }
    await Promise.all(clients.map((c) => c`select 1`));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await admin?.unsafe(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  it('six migrators on an empty schema: none fails, each file applied once, one vector index', async () => {
    const results = await Promise.all(clients.map((c) => migrate(c)));
    const applied = results.flatMap((r) => r.applied).sort();
    const rows = await clients[0]!<
      { name: string }[]
    >`select name from schema_migrations order by name`;
    expect(applied).toEqual(rows.map((r) => r.name));
    await Promise.all(clients.map((c) => ensureVectorIndex(c, 32)));
    const idx =
      await admin`select 1 from pg_indexes where schemaname = ${schema} and indexname = ${indexName(32)}`;
    expect(idx).toHaveLength(1);
  });
});

describe('an up-to-date database', () => {
  it('each start checks the migrations with one read: no file is opened, none applied', async () => {
    const db = await openDatabase(
      loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...(await databaseEnv()) }),
    );
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    try {
      const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
      // the same names, as directories: opening one as a file would fail
      for (const f of files) await mkdir(path.join(dir, f));
      expect(await migrate(db.sql, dir)).toEqual({ applied: [], skipped: files });
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The serving processes' pools bound each statement (DATABASE_STATEMENT_TIMEOUT_SECONDS,
 * src/db/timeouts.ts), and the work that waits on purpose is not cut by it: a replica starting
 * while another migrates waits for the schema lock as long as that takes, and a search index
 * build waits for the writes in flight on `items`. Postgres tier only (the embedded database
 * sets no timeout: one session, nothing to wait for).
 */
describe.runIf(ON_POSTGRES)(
  'migrators and index builds on pools with a tiny statement timeout',
  () => {
    it('two replicas starting while a third migrates both wait and succeed; an index build waits for the writes in flight', async () => {
      const env = await databaseEnv({ empty: true });
      const config = loadConfig({
        ...env,
        DATABASE_STATEMENT_TIMEOUT_SECONDS: '0.2',
        DATABASE_POOL_MAX: '2',
      });
      const replicas = [await openDatabase(config), await openDatabase(config)];
      const other = postgres(env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        const [{ statementTimeout } = { statementTimeout: '' }] = await replicas[0]!.sql<
          { statementTimeout: string }[]
        >`show statement_timeout`;
        expect(statementTimeout).toBe('200ms');
        // a third process migrating: it holds the schema lock for 1.5 s
        let locked!: () => void;
        const holding = new Promise<void>((r) => (locked = r));
        const third = other.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
          locked();
          await new Promise((r) => setTimeout(r, 1_500));
        });
        await holding;
        const started = Date.now();
        const results = await Promise.all(replicas.map((db) => migrate(db.sql)));
        await third;
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
        const applied = results.flatMap((r) => r.applied).sort();
        const rows = await other<
          { name: string }[]
        >`select name from schema_migrations order by name`;
        expect(applied).toEqual(rows.map((r) => r.name));

        // a write to items left open for 1 s: `create index concurrently` waits for it to end
        const writing = other.begin(async (tx) => {
          await tx`lock table items in row exclusive mode`;
          await new Promise((r) => setTimeout(r, 1_000));
        });
        await new Promise((r) => setTimeout(r, 100));
        await ensureVectorIndex(replicas[0]!.sql, 32, { concurrently: true });
        await writing;
        expect(
          await other`select 1 from pg_indexes where indexname = ${indexName(32)}`,
        ).toHaveLength(1);
        // the build's connection went back to the pool with its timeout
        const a = await replicas[0]!.sql.reserve();
        const b = await replicas[0]!.sql.reserve();
        try {
          for (const conn of [a, b]) {
            const [row] = await conn<{ statementTimeout: string }[]>`show statement_timeout`;
            expect(row!.statementTimeout).toBe('200ms');
          }
        } finally {
          a.release();
          b.release();
        }
      } finally {
        await other.end();
        await Promise.all(replicas.map((db) => db.close()));
      }
    }, 120_000);
  },
);
