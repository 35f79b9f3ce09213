import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { unreachableDatabase } from '../../src/db/unreachable.js';
import { enqueueJob } from '../../src/jobs/queue.js';
import { startJobRunner, WorkSignal } from '../../src/jobs/runner.js';
import { captureLogs, expectOutOfReachWarnings, waitForLines } from '../helpers/logs.js';
import {
  adminUrl,
  freshDatabase,
  ON_POSTGRES,
  PG_TEST_ADMIN_TOKEN,
  PG_TEST_ATTESTATION_KEY,
  PG_TEST_SIGNING_SECRET,
} from '../helpers/postgres.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const config = { SCAN_LEASE_SECONDS: 30, SCAN_RETRY_BASE_MS: 1000, WORKER_POLL_MS: 20 };

/**
 * Pools larger than the server allows (issue 25): replicas and workers whose
 * `(processes) × (DATABASE_POOL_MAX + 1)` passes `max_connections` meet Postgres refusing a new
 * connection with 53300 (`sorry, too many clients already`). That is a full server, not a bug: the
 * next try may find a slot. A role's connection limit refuses with the same code, which is how this
 * test fills the server without lowering the shared cluster's `max_connections`.
 */
describe.skipIf(!ON_POSTGRES)('a server whose connection slots are all taken', () => {
  it('is out of reach for a while: the worker says so in one warn line and runs once a slot frees', async () => {
    const url = new URL(await freshDatabase());
    const role = `limited_${randomBytes(4).toString('hex')}`;
    const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    const inDb = postgres(url.toString(), { max: 1, onnotice: () => {} });
    // the role holds grants in the database: both go at the end (closers run last first)
    closers.push(
      () => admin.end(),
      () => admin.unsafe(`drop role if exists ${role}`),
      () => admin.unsafe(`drop database if exists ${url.pathname.slice(1)} with (force)`),
    );
    await admin.unsafe(`create role ${role} login password 'limited' connection limit 1`);
    await inDb.unsafe(`grant all on all tables in schema public to ${role}`);
    await inDb.unsafe(`grant all on all sequences in schema public to ${role}`);
    await enqueueJob(inDb, { kind: 'limit_probe', payload: {}, maxAttempts: 3 });
    await inDb.end();

    url.username = role;
    url.password = 'limited';
    // the one slot this role has, taken (as another replica's pool takes the server's last ones)
    const holder = postgres(url.toString(), { max: 1, onnotice: () => {} });
    await holder`select 1`;
    const refused = await postgres(url.toString(), { max: 1, onnotice: () => {} })`select 1`.catch(
      (e: unknown) => e,
    );
    expect((refused as { code?: string }).code).toBe('53300');

    // a worker's own pool, as the service opens it
    const db = await openDatabase(
      loadConfig({
        DATABASE_URL: url.toString(),
        DATABASE_POOL_MAX: '2',
        URL_SIGNING_SECRET: PG_TEST_SIGNING_SECRET,
        ADMIN_TOKEN: PG_TEST_ADMIN_TOKEN,
        ATTESTATION_PRIVATE_KEY: PG_TEST_ATTESTATION_KEY,
      }),
    );
    closers.push(() => db.close());
    const { logger, lines } = captureLogs();
    let ran = 0;
    const stop = startJobRunner(
      { sql: db.sql, logger, config },
      { limit_probe: { run: async () => void ran++ } },
      new WorkSignal(),
    );
    try {
      await waitForLines(lines, 2);
      expect(ran).toBe(0);
      expectOutOfReachWarnings(
        lines,
        'job pass failed: the database is out of reach, trying again',
        /^53300: .*too many connections/,
      );
      // the slot frees: the same runner, never restarted, runs the job on its next pass
      await holder.end();
      const ranBy = Date.now() + 10_000;
      while (ran === 0 && Date.now() < ranBy) await sleep(20);
      expect(ran).toBe(1);
    } finally {
      await stop();
    }
    // what a request meeting it gets answered from: the same reason, not an unexplained error
    expect(unreachableDatabase(refused)).toMatch(/^53300: /);
  });
});
