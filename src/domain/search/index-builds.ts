import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db, Sql } from '../../db/index.js';
import { INDEX_BUILD_LOCK_CLASS, SCHEMA_LOCK_KEY } from '../../db/migrate.js';
import { noStatementTimeout, withoutStatementTimeout } from '../../db/timeouts.js';

/**
 * How the search indexes (vectors.ts) are built and dropped.
 *
 * On a Postgres server a plain `create index` takes a SHARE lock on `items` for the whole build:
 * every write of the replicas still serving waits behind it, for minutes on a large catalogue. So
 * there (`concurrently`) an index is built with `create index concurrently`, outside any
 * transaction, on a connection of its own holding a session advisory lock, the build lock, for
 * the whole run of a start's builds: a second process that finds it held does not wait, it skips
 * them (`pg_try_advisory_lock`; `npm run reindex` waits instead, `wait`, trying again), so no index is ever
 * built twice at once. The lock is the whole table's, not one per index: two concurrent builds on one table each wait for the
 * other (the second for the first's table lock, the first for the second's snapshot to end) and
 * Postgres ends one as a deadlock; a concurrent drop meets the same. One build at a time on
 * `items`, the others' processes serving meanwhile. A migration holds the same lock for its
 * transaction (src/db/migrate.ts) and tries it rather than waits: migrations wait for a build
 * to end, and a build that finds a migration running is skipped.
 *
 * A build that died half-way (a crash, a kill, a cancel) leaves an INVALID index, which Postgres
 * still maintains on every write and never uses: whoever next holds the build lock drops it and
 * builds it again (while the lock is held, an invalid index is the holder's build in progress).
 *
 * The embedded database (PGlite) accepts `concurrently` but has one session: no other session's
 * write can wait for a build, every query queues behind the statement running anyway (a build in
 * the background would hold up every request instead), and `concurrently` would only add its
 * second table scan. There each build is a plain `create index` in a transaction under the schema
 * lock, as the migrations are, before the process serves.
 */
export interface IndexBuildOptions {
  /** `create index concurrently` outside a transaction, one builder per index (Postgres server). */
  concurrently?: boolean;
  /** Wait for another process's build of the same index instead of skipping it (reindex). */
  wait?: boolean;
  /** Start, finish (with duration), progress and skips, at info. */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** How often a concurrent build's progress (pg_stat_progress_create_index) is logged; 0: never. */
  progressMs?: number;
  /** Stops: the running build is cancelled (its invalid index is dropped by a later start). */
  signal?: AbortSignal;
  /** The connection holding the build lock (withBuildLock's), on which builds and drops run. */
  held?: Sql;
  /** With `wait`: how often the build lock is tried again while another process holds it (ms). */
  retryMs?: number;
}

/** What became of one index: it was there (valid), this call built it, or another process holds it. */
export type IndexOutcome = 'exists' | 'built' | 'skipped';

/** Advisory lock class of the build locks, one per table; migrations take `items`' too. */
export { INDEX_BUILD_LOCK_CLASS };

/**
 * Builds index `name` (`create index <name> <definition>`, definition starting with `on items`)
 * unless a valid one of that name exists. Names and definitions are built from checked integers
 * and words by vectors.ts: they reach the SQL text as they are.
 */
export async function buildIndex(
  sql: Sql,
  name: string,
  definition: string,
  opts: IndexBuildOptions = {},
): Promise<IndexOutcome> {
  if (opts.signal?.aborted) return 'skipped';
  // read first: an existing index costs no transaction and no lock (a start that builds nothing
  // commits nothing)
  if ((await indexState(sql, name)) === 'valid') return 'exists';
  if (!opts.concurrently) {
    return sql.begin(async (tx) => {
      // waits for migrations and other builds, then builds: not cut by a statement timeout
      await noStatementTimeout(tx);
      await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
      const state = await indexState(tx, name);
      if (state === 'valid') return 'exists';
      if (state === 'invalid') await tx.unsafe(`drop index if exists ${name}`);
      const started = Date.now();
      opts.logger?.info({ index: name }, 'index build started');
      await tx.unsafe(`create index ${name} ${definition}`);
      opts.logger?.info({ index: name, ms: Date.now() - started }, 'index build finished');
      return 'built' as const;
    });
  }
  return withBuildLock(sql, opts, 'skipped', async ({ held }) => {
    const conn = held!;
    const state = await indexState(conn, name);
    if (state === 'valid') return 'exists';
    if (state === 'invalid') {
      // the build lock is ours: no build of it is running, a builder died half-way
      opts.logger?.warn({ index: name }, 'index left invalid by an interrupted build: rebuilding');
      await conn.unsafe(`drop index concurrently if exists ${name}`);
    }
    const started = Date.now();
    opts.logger?.info({ index: name, concurrently: true }, 'index build started');
    const [{ pid } = { pid: 0 }] = await conn<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const progress = opts.progressMs ? watchProgress(sql, name, pid, started, opts) : undefined;
    const build = conn.unsafe(`create index concurrently ${name} ${definition}`);
    // Cancelled through the pool, not postgres.js's `query.cancel()`: that opens a connection of
    // its own and drops the promise of it inside the library (cancel() answers null), so a server
    // it cannot reach while this process stops is an unhandled rejection, which ends the process.
    // A cancel that fails is logged; the build then runs on and the next start finds its index.
    const cancel = () => {
      sql`select pg_cancel_backend(${pid})`.catch((err: unknown) =>
        opts.logger?.warn(
          { index: name, pid, err: err instanceof Error ? err.message : String(err) },
          'index build cancel failed: the build may run on',
        ),
      );
    };
    opts.signal?.addEventListener('abort', cancel, { once: true });
    try {
      await build;
    } catch (err) {
      // Postgres keeps the half-built index (invalid, maintained on every write): gone at once,
      // unless this process is stopping (then the next start drops it)
      if (!opts.signal?.aborted) {
        await conn.unsafe(`drop index concurrently if exists ${name}`).catch(() => {});
      }
      throw err;
    } finally {
      opts.signal?.removeEventListener('abort', cancel);
      if (progress) clearInterval(progress);
    }
    opts.logger?.info({ index: name, ms: Date.now() - started }, 'index build finished');
    return 'built';
  });
}

/**
 * Drops index `name` if it exists. On a server, concurrently (no lock that stops reads or writes)
 * and only under the build lock, skipped while another process builds.
 */
export async function dropIndex(
  sql: Sql,
  name: string,
  opts: IndexBuildOptions = {},
): Promise<boolean> {
  if (opts.signal?.aborted || (await indexState(sql, name)) === undefined) return false;
  if (!opts.concurrently) {
    await sql.begin(async (tx) => {
      await noStatementTimeout(tx);
      await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
      await tx.unsafe(`drop index if exists ${name}`);
    });
    opts.logger?.info({ index: name }, 'index dropped');
    return true;
  }
  return withBuildLock(sql, { ...opts, wait: false }, false, async ({ held }) => {
    await held!.unsafe(`drop index concurrently if exists ${name}`);
    opts.logger?.info({ index: name }, 'index dropped');
    return true;
  });
}

/** Valid, invalid (a build in progress or one that died) or absent, in the current schema. */
export async function indexState(sql: Db, name: string): Promise<'valid' | 'invalid' | undefined> {
  const [row] = await sql<{ valid: boolean }[]>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`;
  return row === undefined ? undefined : row.valid ? 'valid' : 'invalid';
}

/**
 * Runs `work` on a connection of its own holding the build lock of `items` in this schema (in
 * `held`); `skipped` when another session holds it and `wait` is not set. Held for a whole run of
 * builds (vectors.ts takes it once for all of a start's): a process that took and released it per
 * index could skip an index while the other held it for the one before, and the other skip it in
 * turn. A session lock, not a transaction's: `create index concurrently` cannot run in a
 * transaction; a process that dies loses its connection and with it the lock. Off a server, or
 * with the lock already held, `work` runs as it is.
 */
export async function withBuildLock<T>(
  sql: Sql,
  opts: IndexBuildOptions,
  skipped: T,
  work: (opts: IndexBuildOptions) => Promise<T>,
): Promise<T> {
  if (!opts.concurrently || opts.held) return work(opts);
  const conn = await sql.reserve();
  // A build (`create index concurrently` on a large catalogue: minutes) and the reads that pick
  // what to build run on this connection without the pool's statement timeout
  // (src/db/timeouts.ts); it gets the timeout back before it returns to the pool.
  const held = conn as unknown as Sql;
  try {
    return await withoutStatementTimeout(held, async () => {
      const [{ key } = { key: 0 }] = await conn<{ key: number }[]>`
        select hashtext(current_schema() || '.items') as key`;
      if (opts.wait) {
        await waitForBuildLock(held, key, opts);
      } else {
        const [row] = await conn<{ locked: boolean }[]>`
          select pg_try_advisory_lock(${INDEX_BUILD_LOCK_CLASS}, ${key}) as locked`;
        if (!row?.locked) {
          opts.logger?.info('index builds skipped: another process is building search indexes');
          return skipped;
        }
      }
      try {
        return await work({ ...opts, held });
      } finally {
        await conn`select pg_advisory_unlock(${INDEX_BUILD_LOCK_CLASS}, ${key})`.catch(() => {});
      }
    });
  } finally {
    conn.release();
  }
}

/**
 * The build lock for `wait` (reindex): tried, and tried again every `retryMs` while another process
 * holds it, as the migrations do (src/db/migrate.ts), never waited for in a statement: a waiting
 * `pg_advisory_lock` holds a snapshot, which the other process's `create index concurrently`
 * waits for in its last phase, and Postgres ends the two as a deadlock. Between tries this session
 * holds nothing. Says once that it waits, and when it got the lock.
 */
async function waitForBuildLock(conn: Sql, key: number, opts: IndexBuildOptions): Promise<void> {
  const since = Date.now();
  for (let waited = false; ; waited = true) {
    const [row] = await conn<{ locked: boolean }[]>`
      select pg_try_advisory_lock(${INDEX_BUILD_LOCK_CLASS}, ${key}) as locked`;
    if (row?.locked) {
      if (waited)
        opts.logger?.info({ waited_ms: Date.now() - since }, 'got the build lock: building');
      return;
    }
    if (!waited)
      opts.logger?.info(
        { retry_ms: opts.retryMs ?? 500 },
        'index builds wait: another process is building search indexes (the build lock is held, tried again until free)',
      );
    await sleep(opts.retryMs ?? 500, undefined, { signal: opts.signal });
  }
}

/** Logs a concurrent build's phase and progress every `progressMs` (from another connection). */
function watchProgress(
  sql: Sql,
  name: string,
  pid: number,
  started: number,
  opts: IndexBuildOptions,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    sql<{ phase: string; done: number; total: number }[]>`
      select phase,
        (case when tuples_total > 0 then tuples_done else blocks_done end)::float8 as done,
        (case when tuples_total > 0 then tuples_total else blocks_total end)::float8 as total
      from pg_stat_progress_create_index where pid = ${pid}`
      .then(([row]) => {
        if (!row) return;
        const percent = row.total > 0 ? Math.round((100 * row.done) / row.total) : undefined;
        opts.logger?.info(
          { index: name, phase: row.phase, percent, ms: Date.now() - started },
          'index build progress',
        );
      })
      .catch(() => {});
  }, opts.progressMs);
  timer.unref();
  return timer;
}
