import { readFile, rm, writeFile } from 'node:fs/promises';
import { runModerate, type VerdictLine } from './domain/feedback/moderation.js';
import path from 'node:path';
import { StartupError, type Config } from './config.js';
import { embeddedDbHolder } from './db/index.js';
import { adminTokenFile } from './secrets.js';

/**
 * The terminal's operator commands (`npm run moderate`, `npm run payments:unresolved`) while a
 * service holds the embedded database: PGlite has one process, so the command asks that service's
 * operator API (src/http/admin/) with the admin token instead of opening the database. The serving
 * process leaves its loopback address in DATA_DIR/operator-api.json while it listens.
 */
export interface OperatorApi {
  url: string;
  token: string;
  pid: number;
}

const endpointFile = (config: Pick<Config, 'DATA_DIR'>) =>
  path.resolve(config.DATA_DIR, 'operator-api.json');

/** Written by `serve` once it listens on the embedded database; removed when it stops. */
export async function publishOperatorApi(
  config: Config,
  address: { port: number; host: string },
): Promise<() => Promise<void>> {
  if (config.DATABASE_URL || config.EMBEDDED_DB_IN_MEMORY) return async () => {};
  const host =
    address.host === '0.0.0.0' || address.host === ''
      ? '127.0.0.1'
      : address.host === '::'
        ? '[::1]'
        : address.host.includes(':')
          ? `[${address.host}]`
          : address.host;
  const file = endpointFile(config);
  await writeFile(
    file,
    JSON.stringify({ pid: process.pid, url: `http://${host}:${address.port}` }),
    { mode: 0o600 },
  );
  return () => rm(file, { force: true });
}

/**
 * The running service's operator API when another process holds the embedded database, else
 * undefined (the command opens the database itself: Postgres, or nobody holds the embedded one).
 */
export async function operatorApiOf(config: Config): Promise<OperatorApi | undefined> {
  const pid = await embeddedDbHolder(config);
  if (pid === undefined) return undefined;
  const published = await readFile(endpointFile(config), 'utf8')
    .then((s) => JSON.parse(s) as { pid: number; url: string })
    .catch(() => undefined);
  if (!published || published.pid !== pid) {
    throw new StartupError(
      `the embedded database in ${config.DATA_DIR} is in use by process ${pid}, which serves no ` +
        'operator API (not `serve`, or still starting): try again once it listens, or stop it first',
    );
  }
  const token =
    config.ADMIN_TOKEN ?? (await readFile(adminTokenFile(config), 'utf8').catch(() => '')).trim();
  if (!token) {
    throw new StartupError(
      `no admin token: set ADMIN_TOKEN or keep ${adminTokenFile(config)} (written at first start)`,
    );
  }
  return { url: published.url, token, pid };
}

async function call<T>(api: OperatorApi, method: 'GET' | 'POST', route: string, body?: unknown) {
  const res = await fetch(`${api.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${api.token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  }).catch((e: unknown) => {
    throw new StartupError(
      `cannot reach the running service's operator API at ${api.url} (process ${api.pid}): ${(e as Error).message}`,
    );
  });
  const json = (await res.json().catch(() => ({}))) as T & { error?: string; message?: string };
  if (!res.ok) {
    throw new StartupError(
      `the running service refused: ${res.status} ${json.error ?? ''} ${json.message ?? ''}`.trim(),
    );
  }
  return json;
}

/** `moderate` through the operator API: the same arguments and output lines as on the database. */
export function moderateOverApi(
  api: OperatorApi,
  args: string[],
): Promise<{ lines: string[]; ok: boolean }> {
  return runModerate(
    {
      list: async (limit) =>
        (await call<{ items: unknown[] }>(api, 'GET', `/admin/api/moderation?limit=${limit}`))
          .items,
      judge: async (ids, verdict) =>
        (
          await call<{ results: VerdictLine[] }>(api, 'POST', '/admin/api/moderation', {
            verdict,
            ids,
          })
        ).results,
    },
    args,
  );
}

/** `payments:unresolved` through the operator API: the same rows as `unresolvedPayments`. */
export async function unresolvedOverApi(
  api: OperatorApi,
  olderThanSeconds: number,
): Promise<unknown[]> {
  const { items } = await call<{ items: unknown[] }>(
    api,
    'GET',
    `/admin/api/payments/unresolved?older_than_seconds=${olderThanSeconds}`,
  );
  return items;
}

/** `attestation:withdraw` through the operator API: the same result as `withdrawSigner`. */
export function withdrawOverApi(api: OperatorApi, address: string): Promise<unknown> {
  return call<unknown>(api, 'POST', '/admin/api/attestation/withdraw', { address });
}
