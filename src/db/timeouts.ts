import type postgres from 'postgres';
import type { Config } from '../config.js';

// ./index.ts's Sql and Db, named here: it imports this module
type Sql = postgres.Sql;
type Db = postgres.Sql | postgres.TransactionSql;

/**
 * How long a statement or an idle transaction may hold a connection of the service's pool on a
 * Postgres server (DATABASE_STATEMENT_TIMEOUT_SECONDS, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS).
 *
 * Without a bound, a statement stuck behind a lock (an operator's open transaction in psql, a
 * migration's ALTER on another replica) or a runaway query held its connection for ever; once the
 * pool's DATABASE_POOL_MAX connections were taken every request of the replica waited, unanswered
 * and unlogged, and a transaction left open by a bug held its locks for ever. Set as startup
 * parameters of each connection (not a SET after connecting: no round trip, and a reconnect has
 * them too). A statement past it is cancelled (SQLSTATE 57014), a transaction idle past it ends
 * its session (25P03); a request meeting either answers 503 `database_unavailable`
 * (./unreachable.ts, statementCancelled).
 *
 * The embedded database has none: one session in this process, which no other session can lock
 * and nothing else shares (a statement there waits for nobody). postgres.js's LISTEN connection
 * (src/runtime.ts, cross-replica cache invalidation) has the same parameters and needs no
 * exemption: it waits for notices idle and outside any transaction, which neither bound counts.
 *
 * The work that waits longer on purpose turns the statement timeout off for itself, never for the
 * pool: a migration's transaction (waiting for another replica's migrations, then altering tables)
 * and a plain index build with `noStatementTimeout`, a concurrent index build's own connection with
 * `withoutStatementTimeout`; the operator commands open the database without either bound
 * (`OpenOptions.timeouts`).
 */
export function sessionTimeouts(
  config: Pick<
    Config,
    'DATABASE_STATEMENT_TIMEOUT_SECONDS' | 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS'
  >,
): { statement_timeout?: number; idle_in_transaction_session_timeout?: number } {
  const ms = (seconds: number) => Math.max(1, Math.round(seconds * 1000));
  const statement = config.DATABASE_STATEMENT_TIMEOUT_SECONDS;
  const idle = config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS;
  // 0 leaves the setting to the server (postgresql.conf, ALTER ROLE ... SET), off by default
  return {
    ...(statement > 0 && { statement_timeout: ms(statement) }),
    ...(idle > 0 && { idle_in_transaction_session_timeout: ms(idle) }),
  };
}

/**
 * No statement timeout for the rest of the transaction `tx` (SET LOCAL: the connection goes back
 * to the pool with its own). For a transaction that waits on purpose: the schema lock another
 * process holds while it migrates, a migration's own statements, a plain index build.
 */
export async function noStatementTimeout(tx: Db): Promise<void> {
  await tx`set local statement_timeout = 0`;
}

/**
 * Runs `work` on `conn`, a connection reserved from the pool, with no statement timeout (for a
 * `create index concurrently`, which cannot run in a transaction and may take minutes), then gives
 * the connection its startup setting back before it returns to the pool.
 */
export async function withoutStatementTimeout<T>(conn: Sql, work: () => Promise<T>): Promise<T> {
  await conn`set statement_timeout = 0`;
  try {
    return await work();
  } finally {
    // RESET goes back to the connection's startup value; a connection that cannot take it is
    // broken and postgres.js replaces it
    await conn`reset statement_timeout`.catch(() => {});
  }
}
