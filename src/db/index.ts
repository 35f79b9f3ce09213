import { access, chmod, mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import postgres from 'postgres';
import { StartupError, type Config } from '../config.js';
import { startCheckpointer } from './checkpoint.js';
import { DURABLE_SETTINGS, makeFsyncDurable } from './durable-fs.js';
import { hintFlagsGiven, pgliteModule } from './parser-baseline.js';
import { takeFirstStart } from './first-start.js';
import { lockDataDir, lockFile, lockHolder } from './lock.js';
import { startPGliteThread, type PGliteThread } from './pglite-thread.js';
import { inProcess, pgliteSocket } from './pglite-wire.js';
import {
  creatingMarker,
  doneCreating,
  fsync,
  madeDirectories,
  markCreating,
  syncDirectories,
} from './durable-dirs.js';
import { findTemplate, templateBlob, unpackTemplate } from './template.js';
import { sessionTimeouts } from './timeouts.js';
import { reconnectDelaySeconds } from './unreachable.js';

/** A piece of SQL built with the tagged template, placed inside another statement. */
export type SqlFragment = postgres.PendingQuery<postgres.Row[]>;

export type Sql = postgres.Sql;
/** A handle that runs queries: the pool or a transaction. Domain functions take this. */
export type Db = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: 'embedded' | 'server';
  /** Embedded only: the whole data directory as a tarball, a template for `OpenOptions.template`. */
  dump?(): Promise<Blob>;
  /**
   * Embedded only: the database's own clock (`now()`) when this process opened it. Only this
   * process ever uses an embedded database (its directory's lock), so whatever a row's timestamp
   * says was written before this instant was written by a process that is gone: a payment claim
   * last touched before then has no request running for it (`ProcessorOptions.orphanedBefore`).
   */
  openedAt?: Date;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Embedded only: a data directory dumped by `Database.dump` to start a new (empty) embedded
   * database from, instead of running initdb. Ignored for a data directory that already holds one.
   */
  template?: Blob;
  /** Told when a new embedded database is being created (the slow part of a first start). */
  logger?: Logger;
  /** Where the shipped (migrated) template is looked for (./template.ts); tests point elsewhere. */
  templateDir?: string;
  /**
   * Server only: bound each connection's statements and idle transactions by
   * DATABASE_STATEMENT_TIMEOUT_SECONDS and DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS
   * (./timeouts.ts). Default true; the operator commands pass false: a person starts and watches
   * them, and their work (migrations waiting for another replica's, reindex's vectors and index
   * builds) may take minutes on purpose.
   */
  timeouts?: boolean;
}

/**
 * Settings of the embedded Postgres, given on its command line (the data directory's own
 * postgresql.conf stays initdb's). PGlite keeps every page of its WASM memory it ever touched, and
 * Postgres touches all of shared_buffers at start: initdb's 128 MB default was 128 MB resident
 * from the first second. 16 MB holds the hot part of the catalogue and indexes; colder pages come
 * from the operating system's file cache, one read each.
 */
const EMBEDDED_SETTINGS = ['-c', 'shared_buffers=16MB'];

// int8 as a JS number: every integer we store (USDC base units, counts) is far below 2^53.
const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (x: number | bigint) => x.toString(),
  parse: (x: string) => Number(x),
};

/**
 * postgres.js pipelines a query onto a busy connection when none is idle, up to `max_pipeline`
 * queries (100 by default), and reserves a connection for a transaction in a hook that it skips
 * when the BEGIN is the query that fills that pipeline (porsager/postgres#1189): the transaction's
 * first query then threw a TypeError (an HTTP 500) and the connection, left inside the open
 * transaction, went back to serving other requests. A pool reaches that depth when 200 requests
 * at once meet connections mostly reserved by transactions (the scale bench, 1 replica). Never
 * full: the queries wait on the connections instead of in postgres.js's queue, as many either way.
 */
const UNBOUNDED_PIPELINE = Number.MAX_SAFE_INTEGER;

/** postgres.js's options (its `socket` option, a function returning the stream to speak over, is documented but not typed). */
type PostgresOptions = postgres.Options<Record<string, postgres.PostgresType>>;

/** `max_pipeline` is documented but not typed either. */
function clientOptions(extra: PostgresOptions & { max_pipeline?: number }) {
  return {
    transform: postgres.camel,
    onnotice: () => {},
    types: { int8: int8AsNumber },
    ...extra,
  } satisfies PostgresOptions & { max_pipeline?: number };
}

/**
 * Opens the database the config names: Postgres at DATABASE_URL, or the embedded PGlite (with
 * pgvector) under DATA_DIR, which postgres.js reaches in process (no port, no socket file) so that
 * the same driver, SQL and migrations serve both.
 */
export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Database> {
  if (config.DATABASE_URL) {
    const sql = postgres(
      config.DATABASE_URL,
      clientOptions({
        max: config.DATABASE_POOL_MAX,
        max_pipeline: UNBOUNDED_PIPELINE,
        connect_timeout: config.DATABASE_CONNECT_TIMEOUT_SECONDS,
        backoff: reconnectDelaySeconds,
        ...(opts.timeouts !== false && { connection: sessionTimeouts(config) }),
      }),
    );
    return { sql, kind: 'server', close: () => sql.end({ timeout: 5 }) };
  }

  let dataDir: string | undefined;
  let releaseLock = async () => {};
  let loadDataDir = opts.template;
  if (!config.EMBEDDED_DB_IN_MEMORY) {
    const made = await mkdir(config.DATA_DIR, { recursive: true });
    await syncDirectories(madeDirectories(config.DATA_DIR, made));
    dataDir = path.resolve(config.DATA_DIR, 'pg');
    // the process entry may have locked and made it already, while the modules loaded (./first-start.ts)
    const early = await takeFirstStart(dataDir);
    releaseLock = early?.release ?? (await lockOrFail(dataDir));
    if (early?.made)
      opts.logger?.info(
        { dataDir },
        'first start: creating the embedded database from its template',
      );
  }
  let db: PGliteThread;
  // a database made in place by this start, whole once open and synced (createDataDir)
  let inPlace = false;
  try {
    if (dataDir) {
      const halfMade = await exists(creatingMarker(dataDir));
      if (!halfMade && (await exists(path.join(dataDir, 'PG_VERSION')))) loadDataDir = undefined;
      else ({ load: loadDataDir, inPlace } = await createDataDir(dataDir, opts));
      // owner only, as Postgres demands of its data directory (also for one made by an older version)
      await chmod(dataDir, 0o700);
    } else if (!loadDataDir) {
      const found = await findTemplate(opts.templateDir);
      if (found.ok) loadDataDir = await templateBlob(found.tarball);
    }
    // on disk, commits wait for the disk unless EMBEDDED_DB_FSYNC=false (./durable-fs.ts)
    const durable = dataDir !== undefined && config.EMBEDDED_DB_FSYNC;
    const settings = durable ? [...EMBEDDED_SETTINGS, ...DURABLE_SETTINGS] : EMBEDDED_SETTINGS;
    // PGlite's module with our edits (./parser-baseline.ts): Postgres's start zeroes only memory
    // that may be dirty (./fresh-mmap.ts); the SQL parser kept off V8's optimising compiler under
    // npm start's flags
    const pgliteWasmModule = await pgliteModule(opts.logger, {
      hint: config.EMBEDDED_DB_PARSER_BASELINE && hintFlagsGiven(),
    });
    db = config.EMBEDDED_DB_THREAD
      ? await startPGliteThread({
          ...(dataDir !== undefined && { dataDir }),
          ...(loadDataDir && { template: await loadDataDir.arrayBuffer() }),
          ...(pgliteWasmModule && { pgliteWasmModule }),
          settings,
          durable,
        })
      : await inProcessPGlite(
          { dataDir, loadDataDir, ...(pgliteWasmModule && { pgliteWasmModule }) },
          settings,
          durable,
        );
    if (inPlace && dataDir) await doneCreating(dataDir).catch(closeAnd(db));
  } catch (e) {
    await releaseLock();
    throw e;
  }
  // No listener at all: postgres.js talks to PGlite inside this process (./pglite-wire.ts), so no
  // other process can reach the database. PGlite is a single session: exactly one connection, so
  // a transaction can never interleave with another query.
  const inProcess: PostgresOptions & {
    socket: ReturnType<typeof pgliteSocket>;
    max_pipeline: number;
  } = {
    socket: pgliteSocket(db),
    database: 'postgres',
    username: 'postgres',
    max: 1,
    // Every query of every request goes onto this one connection. postgres.js reserves it for a
    // transaction in a hook that it skips when the BEGIN fills the pipeline (`max_pipeline`) or
    // meets a full stream buffer (porsager/postgres#1189): the transaction's queries then ran
    // beside other requests' or crashed the process (seen under 200 connections). Neither limit
    // is reached here: the pipeline is unbounded and the stream's buffer too (./pglite-wire.ts);
    // the queries wait in the stream instead of in postgres.js's queue, as many either way.
    max_pipeline: UNBOUNDED_PIPELINE,
    // PGlite cannot cancel; keep the single connection alive for the life of the process.
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: true,
  };
  const sql = postgres(clientOptions(inProcess));
  const opened = async () => {
    // The database's clock, not this process's: it is compared with the timestamps the database
    // writes (one clock), read before any request of this process can write one.
    const [row] = await sql<{ openedAt: Date }[]>`select now() as opened_at`;
    // no checkpointer in a single-user Postgres: the service runs them (./checkpoint.ts)
    const checkpointer = await startCheckpointer(
      sql,
      {
        walBytes: config.EMBEDDED_CHECKPOINT_WAL_MB * 1024 * 1024,
        intervalMs: config.EMBEDDED_CHECKPOINT_SECONDS * 1000,
        checkMs: config.EMBEDDED_CHECKPOINT_CHECK_SECONDS * 1000,
      },
      opts.logger,
    );
    return { openedAt: row!.openedAt, checkpointer };
  };
  const { openedAt, checkpointer } = await opened().catch(async (e: unknown) => {
    await sql.end({ timeout: 5 });
    await db.close().finally(releaseLock);
    throw e;
  });
  return {
    sql,
    kind: 'embedded',
    openedAt,
    dump: () => db.dump(),
    async close() {
      await checkpointer.stop();
      await sql.end({ timeout: 5 });
      try {
        await db.close();
      } finally {
        await releaseLock();
      }
    },
  };
}

/** PGlite on this thread, behind the same interface as on its own (./pglite-thread.ts). */
async function inProcessPGlite(
  options: PGliteOptions,
  settings: string[],
  durable: boolean,
): Promise<PGliteThread> {
  const [{ PGlite }, { vector }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  const db = await PGlite.create({
    ...options,
    extensions: { vector, pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...settings],
  });
  return {
    ...inProcess(db, durable ? makeFsyncDurable(db.Module) : undefined),
    dump: () => db.dumpDataDir('none'),
    close: () => db.close(),
  };
}

/** Closes `db`, then throws `e` on (for a failure after it opened). */
const closeAnd =
  (db: PGliteThread) =>
  async (e: unknown): Promise<never> => {
    await db.close().catch(() => {});
    throw e;
  };

/**
 * A first start on `dataDir` (which holds no database, or one half made in place): from the
 * caller's template (tests), else from the migrated template the build ships (files copied: no
 * initdb, no migrations), else PGlite's initdb runs. Returns the tarball PGlite is to load itself,
 * if any, and whether the database is made in place by PGlite (then marked as being made until it
 * is open and synced: ./durable-dirs.ts creatingMarker).
 */
async function createDataDir(
  dataDir: string,
  opts: OpenOptions,
): Promise<{ load?: Blob; inPlace: boolean }> {
  const log = opts.logger;
  // nothing in it is a database: an empty directory, a first start cut short (no PG_VERSION), or
  // one made in place and cut short (its marker still there)
  await rm(dataDir, { recursive: true, force: true });
  if (opts.template) {
    log?.info({ dataDir }, 'first start: creating the embedded database from its template');
    await markCreating(dataDir);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    return { load: opts.template, inPlace: true };
  }
  const found = await findTemplate(opts.templateDir);
  if (found.ok) {
    log?.info({ dataDir }, 'first start: creating the embedded database from its template');
    // whole once renamed into place (./template.ts); a marker left by a start cut short goes after
    await unpackTemplate(found.tarball, dataDir);
    if (await exists(creatingMarker(dataDir))) {
      await rm(creatingMarker(dataDir), { force: true });
      await fsync(path.dirname(path.resolve(dataDir)));
    }
    return { inPlace: false };
  }
  if (found.reason !== 'missing') {
    log?.warn(
      { reason: found.reason, detail: found.detail },
      'the embedded database template does not fit this install (npm run build makes a new one): running initdb instead',
    );
  }
  log?.info(
    { dataDir },
    'first start: creating the embedded database (initdb, a few seconds, only this once)',
  );
  await markCreating(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  return { inPlace: true };
}

/** Locks `dataDir` for this process (./lock.ts), or says which live process holds it. */
async function lockOrFail(dataDir: string): Promise<() => Promise<void>> {
  const lock = lockDataDir(dataDir);
  if ('release' in lock) return lock.release;
  throw new StartupError(
    `the embedded database in ${path.dirname(lockFile(dataDir))} is in use by process ${lock.holder}: ` +
      'stop it first, or run every process against a shared DATABASE_URL',
  );
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/**
 * The live process (not this one) holding the embedded database under DATA_DIR, if any: the
 * operator commands then talk to its operator API instead of opening the database (src/operator-api.ts).
 */
export async function embeddedDbHolder(
  config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL' | 'EMBEDDED_DB_IN_MEMORY'>,
): Promise<number | undefined> {
  if (config.DATABASE_URL || config.EMBEDDED_DB_IN_MEMORY) return undefined;
  const file = lockFile(path.resolve(config.DATA_DIR, 'pg'));
  const dir = await realpath(path.dirname(file)).catch(() => undefined);
  if (dir === undefined) return undefined;
  const pid = lockHolder(file, dir);
  return pid !== process.pid ? pid : undefined;
}
