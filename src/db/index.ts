import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { Config } from '../config.js';

export type Sql = postgres.Sql;
/** A handle that runs queries: the pool or a transaction. Domain functions take this. */
export type Db = postgres.Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: 'embedded' | 'server';
  close(): Promise<void>;
}

// int8 as a JS number: every integer we store (USDC base units, counts) is far below 2^53.
const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (x: number | bigint) => x.toString(),
  parse: (x: string) => Number(x),
};

function clientOptions(extra: postgres.Options<Record<string, postgres.PostgresType>>) {
  return {
    transform: postgres.camel,
    onnotice: () => {},
    types: { int8: int8AsNumber },
    ...extra,
  } satisfies postgres.Options<Record<string, postgres.PostgresType>>;
}

/**
 * Opens the database the config names: Postgres at DATABASE_URL, or the embedded PGlite (with
 * pgvector) under DATA_DIR, reached through postgres.js over pglite-socket so that the same driver,
 * SQL and migrations serve both.
 */
export async function openDatabase(config: Config): Promise<Database> {
  if (config.DATABASE_URL) {
    const sql = postgres(config.DATABASE_URL, clientOptions({ max: config.DATABASE_POOL_MAX }));
    return { sql, kind: 'server', close: () => sql.end({ timeout: 5 }) };
  }

  const [{ PGlite }, { vector }, { pg_trgm }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite-socket'),
  ]);
  let dataDir: string | undefined;
  let releaseLock = async () => {};
  if (!config.EMBEDDED_DB_IN_MEMORY) {
    dataDir = path.resolve(config.DATA_DIR, 'pg');
    await mkdir(dataDir, { recursive: true });
    releaseLock = await lockDataDir(dataDir);
  }
  let db;
  try {
    db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  } catch (e) {
    await releaseLock();
    throw e;
  }
  // PGlite is a single session. The socket server serializes connections; we open exactly one
  // (see notes/embedded-postgres.md), so a transaction can never interleave with another query.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  const sql = postgres(
    clientOptions({
      host,
      port: Number(port),
      database: 'postgres',
      username: 'postgres',
      max: 1,
      // PGlite cannot cancel; keep the single connection alive for the life of the process.
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: true,
    }),
  );
  return {
    sql,
    kind: 'embedded',
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
      await releaseLock();
    },
  };
}

/**
 * PGlite has no postmaster: two processes opening one data directory would corrupt it. A pid file
 * makes the second one (a `npm run worker`, `migrate` or `reindex` beside a running `npm start`)
 * stop with a clear message instead; a file left by a dead process is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, '..', 'embedded-db.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (pid && isAlive(pid)) {
        throw new Error(
          `the embedded database in ${path.dirname(file)} is in use by process ${pid}: ` +
            'stop it first, or run every process against a shared DATABASE_URL',
        );
      }
      await rm(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock the embedded database in ${path.dirname(file)}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
