import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from '../config.js';
import type { Db, Sql } from './index.js';
import { MIGRATIONS_DIR } from './migrations-dir.js';
import { noStatementTimeout } from './timeouts.js';

/** `migrations/` at the package root (./migrations-dir.ts). */
export { MIGRATIONS_DIR };

/**
 * Transaction-level advisory lock key serialising schema changes across processes: migrations and
 * the per-dimension vector index (src/domain/search/vectors.ts).
 */
export const SCHEMA_LOCK_KEY = 727274;

/**
 * Advisory lock class (first key of the two-key form) of the search index build locks, one per
 * table (src/domain/search/index-builds.ts): a migration holds `items`' for its transaction.
 */
export const INDEX_BUILD_LOCK_CLASS = 727275;

export interface MigrateOptions {
  /** Says once that the migrations wait for another process's index build. */
  logger?: { info(obj: object, msg: string): void };
  /** How often the build lock is tried again while another process builds (ms). */
  retryMs?: number;
}

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

/**
 * Applies `migrations/*.sql` in name order, each in its own transaction, recording each in
 * `schema_migrations`. An advisory lock makes concurrent migrators (several replicas starting at
 * once) apply each file exactly once. Forward only: a landed file is never edited.
 */
export async function migrate(
  sql: Sql,
  dir = MIGRATIONS_DIR,
  opts: MigrateOptions = {},
): Promise<MigrationResult> {
  const lock = schemaLock(opts.logger);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  // Every start of an up-to-date database: one read shows each file recorded (committed, so
  // applied), and nothing is locked, read or written file by file.
  const recorded = await recordedMigrations(sql);
  if (files.every((f) => recorded.has(f))) return { applied: [], skipped: files };
  // Under the lock too: on a real server two `create table if not exists` racing on an empty
  // database both miss the table and one fails on the catalog's unique index (pg_type).
  await sql.begin(async (tx) => {
    // Waiting for the schema lock is the point when another replica migrates (for as long as its
    // migrations take), and a migration may rewrite a table for minutes: neither is cut by the
    // pool's statement timeout (./timeouts.ts), here nor in each file's transaction below.
    await noStatementTimeout(tx);
    await lock(tx);
    await tx`
      create table if not exists schema_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`;
  });
  const result: MigrationResult = { applied: [], skipped: [] };
  let waited = false;
  for (const name of files) {
    const body = await readFile(path.join(dir, name), 'utf8');
    for (;;) {
      const applied = await sql.begin(async (tx) => {
        await noStatementTimeout(tx);
        await lock(tx);
        if (!(await buildLockTaken(tx))) return 'building' as const;
        const [done] = await tx`select 1 from schema_migrations where name = ${name}`;
        if (done) return false;
        await tx.unsafe(body).catch((e: unknown) => {
          throw migrationError(name, e);
        });
        await tx`insert into schema_migrations (name) values (${name})`;
        return true;
      });
      if (applied !== 'building') {
        (applied ? result.applied : result.skipped).push(name);
        break;
      }
      if (!waited)
        opts.logger?.info(
          { migration: name },
          "migrations wait for another process's search index build",
        );
      waited = true;
      await new Promise((r) => setTimeout(r, opts.retryMs ?? 500));
    }
  }
  return result;
}

/**
 * Takes `items`' index build lock for the migration's transaction, or false while another process
 * builds a search index (`create index concurrently`, src/domain/search/index-builds.ts). A
 * migration that alters `items` during a build would queue an ACCESS EXCLUSIVE lock behind the
 * build's for the whole build, and every read and write of `items` by the replicas serving would
 * queue behind it. Tried, not waited for: a statement waiting on the lock holds a snapshot, which
 * the build's last phase waits for (a deadlock Postgres would end by cancelling one of the two);
 * between tries the migrator holds nothing. A builder that finds it taken skips its builds.
 */
async function buildLockTaken(tx: Db): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(${INDEX_BUILD_LOCK_CLASS}, hashtext(current_schema() || '.items'))
      as locked`;
  return row?.locked === true;
}

/**
 * Takes the schema lock in a migration's transaction. A process that finds it held (another
 * replica migrating, or building a search index) says so once, before it blocks, and once more
 * when it got the lock: an operator watching a start that seems stuck knows why.
 */
function schemaLock(logger?: MigrateOptions['logger']): (tx: Db) => Promise<void> {
  let told = false;
  return async (tx) => {
    const [free] = await tx<{ locked: boolean }[]>`
      select pg_try_advisory_xact_lock(${SCHEMA_LOCK_KEY}) as locked`;
    if (free?.locked) return;
    const since = Date.now();
    if (!told) {
      logger?.info(
        { lock: SCHEMA_LOCK_KEY },
        "waiting for another process's migrations (or search index build) to finish: the schema lock is held",
      );
    }
    await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
    if (!told) {
      logger?.info(
        { lock: SCHEMA_LOCK_KEY, waited_ms: Date.now() - since },
        'got the schema lock: applying the migrations still missing',
      );
    }
    told = true;
  };
}

/**
 * The names `schema_migrations` records (none before the first migration): the table in the schema
 * the migrations create theirs in (the first of the search path), as the locked path reads it.
 */
async function recordedMigrations(sql: Sql): Promise<Set<string>> {
  const [table] = await sql<{ present: boolean }[]>`
    select exists (
      select 1 from pg_tables where schemaname = current_schema() and tablename = 'schema_migrations'
    ) as present`;
  if (!table?.present) return new Set();
  const rows = await sql<{ name: string }[]>`select name from schema_migrations`;
  return new Set(rows.map((r) => r.name));
}

/**
 * Names the failing file, and for the usual first-deployment failure says what to do: `vector` is
 * not a trusted extension, so only a superuser can create it (docs/operating.md, Running on Postgres).
 */
export function migrationError(name: string, e: unknown): Error {
  const pg = e as { code?: string; message?: string };
  let message = `migration ${name} failed: ${pg.message ?? String(e)}`;
  if (pg.code === '42501' && /extension/i.test(pg.message ?? '')) {
    message +=
      '. Create the extensions once as a superuser in this database, then migrate again: ' +
      'create extension if not exists vector; create extension if not exists pg_trgm;';
  }
  return new StartupError(message, { cause: e });
}
