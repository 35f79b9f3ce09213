import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * The Postgres tier (`npm run test:postgres`): scripts/postgres.sh starts a throwaway PostgreSQL 15
 * + pgvector cluster on loopback and exports PG_ADMIN_URL (a superuser); TEST_TIER=postgres makes
 * every test app, service process and operator command run on a database of its own there instead
 * of the embedded one. ./global-setup.ts migrates a template database once per run; each new
 * database is a copy of it (CREATE DATABASE … TEMPLATE: a file copy, no migrations run again).
 */
export const ON_POSTGRES = process.env.TEST_TIER === 'postgres';

/** The database every test database is copied from (migrated once per run by global setup). */
export const PG_TEMPLATE_DB = 'marketplace_template';

/** A fixed signing secret: DATABASE_URL deployments must set one (src/config.ts). */
export const PG_TEST_SIGNING_SECRET = 'test-url-signing-secret-for-the-postgres-tier';
/** A fixed operator token: DATABASE_URL deployments must set one too. */
export const PG_TEST_ADMIN_TOKEN = 'test-admin-token-for-the-postgres-tier-0123456789';
/** The scan-report key of the Postgres tier (production keys have no default). */
export const PG_TEST_ATTESTATION_KEY = `0x${'a7'.repeat(32)}`;

export function adminUrl(): string {
  const url = process.env.PG_ADMIN_URL;
  if (!url) {
    throw new Error(
      'TEST_TIER=postgres needs PG_ADMIN_URL: run `npm run test:postgres` (scripts/postgres.sh starts a cluster)',
    );
  }
  return url;
}

/** The URL of database `name` on the tier's cluster. */
export function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

let admin: postgres.Sql | undefined;
function adminSql(): postgres.Sql {
  admin ??= postgres(adminUrl(), { max: 2, onnotice: () => {}, idle_timeout: 5 });
  return admin;
}

/**
 * A new database holding every migration (a copy of the run's template), or with `empty` nothing
 * at all (no extensions, no migrations: what an operator's first `npm run migrate` meets); its URL.
 */
export async function freshDatabase(opts: { empty?: boolean } = {}): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminSql().unsafe(
    `create database ${name} template ${opts.empty ? 'template0' : PG_TEMPLATE_DB}`,
  );
  return databaseUrl(name);
}

/**
 * What a test's app or service process adds to its environment to run on the tier's cluster: a
 * fresh migrated database and the signing secret production settings require. Empty on the
 * embedded tier, so that `{ ...env, ...(await databaseEnv()) }` reads the same on both.
 */
export async function databaseEnv(opts: { empty?: boolean } = {}): Promise<Record<string, string>> {
  if (!ON_POSTGRES) return {};
  return {
    DATABASE_URL: await freshDatabase(opts),
    URL_SIGNING_SECRET: PG_TEST_SIGNING_SECRET,
    ADMIN_TOKEN: PG_TEST_ADMIN_TOKEN,
    ATTESTATION_PRIVATE_KEY: PG_TEST_ATTESTATION_KEY,
  };
}

/**
 * Runs `hold` (a `lock table …`, an advisory lock, a row lock) in a transaction of `session`, a
 * connection other than the app's, as an operator's open psql transaction or another replica's
 * migration would, and keeps that transaction open until the returned release is called (it
 * resolves once the transaction has ended).
 */
export async function holdInSession(
  session: postgres.Sql,
  hold: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const holding = new Promise<void>((r) => (held = r));
  const done = session.begin(async (tx) => {
    await hold(tx);
    held();
    await released;
  });
  await holding;
  return async () => {
    release();
    await done;
  };
}

/**
 * `send`'s answer with its time, or none after `ms` (a request waiting on a lock that nothing
 * bounds): `status` is then a sentence saying so, for an assertion's message.
 */
export async function answerWithin<T extends { statusCode: number }>(
  send: () => Promise<T>,
  ms: number,
): Promise<{ res: T | undefined; status: number | string; ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(r, ms, undefined)));
  const res = await Promise.race([send(), late]).finally(() => clearTimeout(timer));
  return { res, status: res?.statusCode ?? `no answer within ${ms} ms`, ms: Date.now() - started };
}
