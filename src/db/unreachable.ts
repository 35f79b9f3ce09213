/** Network errors of a connection to the database, from the socket or from postgres.js. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * One line saying why the database is out of reach, when `err` is a transient connection error (a
 * Postgres restart or failover, the network): the server shutting down or still starting (SQLSTATE
 * 57P01-57P03), a connection exception (class 08), a socket error, or the server refusing a new
 * connection because its `max_connections` (or a role's or database's connection limit) is taken
 * (53300: the pools together are larger than the server allows; the next try may find a slot).
 * Undefined for anything else, which stays an error with its stack.
 */
export function unreachableDatabase(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (!code) return undefined;
  const transient =
    CONNECTION_CODES.has(code) ||
    code === '53300' ||
    /^57P0[123]$/.test(code) ||
    /^08[0-9A-Z]{3}$/.test(code);
  if (!transient) return undefined;
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0] : '';
  return message && !message.includes(code) ? `${code}: ${message}` : message || code;
}

/**
 * `unreachableDatabase` for an error a database query failed with, never one of another client's
 * (the object store's or a facilitator's `ECONNREFUSED` carries the same code): postgres.js marks
 * each error it rejects a query with by its `query`, and a server error is a `PostgresError`.
 */
export function unreachableQuery(err: unknown): string | undefined {
  const e = err as object | null;
  if (typeof e !== 'object' || e === null) return undefined;
  if (!('query' in e) && (e as { name?: unknown }).name !== 'PostgresError') return undefined;
  return unreachableDatabase(err);
}

/**
 * Which bound ended a database query, when `err` is a statement Postgres cancelled (SQLSTATE 57014
 * query_canceled: past `statement_timeout`, or `pg_cancel_backend` by an operator) or a session
 * it ended because its transaction sat idle past `idle_in_transaction_session_timeout` (25P03):
 * src/db/timeouts.ts. The statement's transaction rolled back whole, so the request may be sent
 * again as it is. Undefined for anything else, as `unreachableQuery` (a query's errors only).
 */
export function statementCancelled(err: unknown): { timeout: string; reason: string } | undefined {
  const e = err as { code?: unknown; message?: unknown; name?: unknown; query?: unknown } | null;
  if (typeof e !== 'object' || e === null) return undefined;
  if (!('query' in e) && e.name !== 'PostgresError') return undefined;
  const timeout =
    e.code === '57014'
      ? 'statement_timeout'
      : e.code === '25P03'
        ? 'idle_in_transaction_session_timeout'
        : undefined;
  if (!timeout) return undefined;
  const message = typeof e.message === 'string' ? e.message.split('\n')[0] : '';
  return { timeout, reason: message ? `${String(e.code)}: ${message}` : String(e.code) };
}

/**
 * Seconds a pool connection waits before it tries again after failing to connect, by the
 * consecutive failures postgres.js counts across the pool (reset by a connection made): about
 * 0.1, 0.2, 0.4, 0.8, then 1 s, jittered. Queries queued on the connection wait for that timer.
 * postgres.js's default grows as 3^n / 100 s up to 20 s, so a restart that failed a few dozen
 * requests left the next ones hanging, not answered 503, and after Postgres was back two replicas
 * answered searches up to 12 s later (stop 54: 4 search loops, a fast shutdown and a start 6 s
 * later; the slowest answer took 16.6 s). Work that waits for the database to answer again (a
 * worker's held job end, a sent payout's record) tries at the same cadence.
 */
export function reconnectDelaySeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.1 * 2 ** Math.max(0, failures - 1), 1);
}
