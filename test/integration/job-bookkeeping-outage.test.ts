import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database, type Sql } from '../../src/db/index.js';
import { AppError } from '../../src/errors.js';
import { claimJob, enqueueJob } from '../../src/jobs/queue.js';
import { runDueJobs, startJobRunner, WorkSignal } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/runtime.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { captureLogs, type LogLine } from '../helpers/logs.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';
import {
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * A worker's bookkeeping of a job (its deferral, retry or end) when the database goes away mid-job
 * or another worker took the job over (docs/operating.md, "After a crash"): the worker keeps it
 * until the database answers, and writes it only on a job it still holds.
 */

const config = { SCAN_LEASE_SECONDS: 30, SCAN_RETRY_BASE_MS: 0, WORKER_POLL_MS: 20 };

interface JobRow {
  state: string;
  attempts: number;
  lockedBy: string | null;
}
const jobRow = async (sql: Sql, id: number) =>
  (await sql<JobRow[]>`select state, attempts, locked_by from jobs where id = ${id}`)[0];

const withMsg = (lines: LogLine[], prefix: string) =>
  lines.filter((l) => l.msg?.startsWith(prefix));

describe('a worker whose lease ran out leaves the job another worker took over', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(
      loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...(await databaseEnv()) }),
    );
  });
  afterAll(() => db?.close());

  it.each([
    ['finish', undefined],
    ['retry', new Error('the archive reader choked')],
    ['defer', new AppError('storage_unavailable')],
  ] as const)(
    'its late %s does not touch the other worker’s claim',
    async (bookkeeping, failure) => {
      const [queued] = await enqueueJob(db.sql, { kind: 'probe', payload: {}, maxAttempts: 3 });
      const id = Number(queued!.id);
      const { logger, lines } = captureLogs();
      await runDueJobs(
        { sql: db.sql, logger, config, workerId: 'worker-a' },
        {
          probe: {
            run: async () => {
              // worker A stalls past its lease; worker B claims the job (attempt 2) and runs it
              await db.sql`update jobs set locked_until = now() - interval '1 second' where id = ${id}`;
              expect((await claimJob(db.sql, 30, 'worker-b'))?.id).toBe(id);
              if (failure) throw failure;
            },
          },
        },
        1,
      );
      // B's claim as B made it: still running, B's, its attempt counted
      expect(await jobRow(db.sql, id)).toEqual({
        state: 'running',
        attempts: 2,
        lockedBy: 'worker-b',
      });
      expect(withMsg(lines, 'job bookkeeping dropped')).toEqual([
        expect.objectContaining({ level: 40, jobId: id, bookkeeping, takenBy: 'worker-b' }),
      ]);
    },
  );
});

/**
 * Postgres tier only: the embedded database is in the process and cannot go away alone. The app
 * reaches Postgres through a relay the test cuts (as in database-outage.test.ts); the test reads
 * and plays the other worker on a connection of its own.
 */
describe.runIf(ON_POSTGRES)('a worker that lost the database mid-job', () => {
  let t: SellingContext;
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  let direct: Sql;
  const { logger, lines } = captureLogs();

  beforeAll(async () => {
    const env = await databaseEnv();
    // int8 as a number, as the app's own connection reads it (src/db/index.ts)
    direct = postgres(env.DATABASE_URL!, {
      max: 2,
      onnotice: () => {},
      transform: postgres.camel,
      types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
    });
    const url = new URL(env.DATABASE_URL!);
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    t = await startSellingApp(
      {
        ...env,
        DATABASE_URL: url.toString(),
        DATABASE_CONNECT_TIMEOUT_SECONDS: '2',
        // short, so that on a build where a lost deferral waits for the lease the test ends soon
        SCAN_LEASE_SECONDS: '5',
      },
      { logger },
    );
  });
  afterAll(async () => {
    await t?.close();
    await relay?.close();
    await direct?.end({ timeout: 1 });
  });

  /** The database goes away now and comes back `ms` later (a fast Postgres restart). */
  let back: Promise<void> | undefined;
  const outage = async (ms: number) => {
    await relay.cut();
    back = new Promise((r) => setTimeout(r, ms)).then(() => relay.restore());
  };
  // each test ends with the database back, whatever the worker did meanwhile
  afterEach(async () => {
    await back;
    back = undefined;
  });

  /** Runs one job once one is due (after a deferral's wait, or a lease that ran out). */
  const runOneWhenDue = async (run: () => Promise<number>) => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      // a claim that meets the database still away fails: the next try reconnects
      if ((await run().catch(() => 0)) > 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('no job came due within 20 s');
  };

  it('a listing whose scan lost the database at each of its attempts is scanned and published, its attempts unused', async () => {
    const deps = t.runtime.deps;
    const maxAttempts = t.config.SCAN_MAX_ATTEMPTS;
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const before = lines.length;

    // the database goes away once the scan has marked the listing `scanning` and reads its archive
    const storage = deps.storage;
    const losing: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      createReadStream: async (key: string) => {
        await outage(1_000);
        return storage.createReadStream(key);
      },
    });
    const losingHandlers = jobHandlers({ ...deps, storage: losing });
    for (let i = 0; i < maxAttempts; i++)
      await runOneWhenDue(() => runDueJobs(deps, losingHandlers, 1));
    await runOneWhenDue(() => runDueJobs(deps, jobHandlers(deps), 1));

    expect(await sellerStatus(t, seller, itemId)).toEqual({ status: 'active', reason: 'approved' });
    const [job] = await direct<JobRow[]>`
      select state, attempts, locked_by from jobs where item_id = ${itemId}`;
    // the one clean run is its only attempt
    expect(job).toMatchObject({ state: 'done', attempts: 1 });
    const seen = lines.slice(before);
    expect(withMsg(seen, 'job bookkeeping held')).toHaveLength(maxAttempts);
    expect(withMsg(seen, 'job bookkeeping held')[0]).toMatchObject({
      level: 40,
      kind: 'scan',
      bookkeeping: 'defer',
      reason: expect.stringMatching(/ECONN|CONNECTION/),
    });
    expect(withMsg(seen, 'job bookkeeping landed')).toEqual(
      Array.from({ length: maxAttempts }, () =>
        expect.objectContaining({ level: 30, bookkeeping: 'defer', heldMs: expect.any(Number) }),
      ),
    );
    expect(withMsg(seen, 'reclaimed a job')).toEqual([]);
    expect(seen.filter((l) => l.level >= 50)).toEqual([]);
  }, 60_000);

  it('a job that ran to its end while the database went away is recorded done, not run again', async () => {
    const deps = t.runtime.deps;
    const [queued] = await enqueueJob(direct, { kind: 'probe', payload: {}, maxAttempts: 3 });
    const id = Number(queued!.id);
    const before = lines.length;
    let ran = 0;
    await runDueJobs(
      deps,
      {
        probe: {
          run: async () => {
            ran++;
            await outage(1_000);
          },
        },
      },
      1,
    );
    expect(await jobRow(direct, id)).toMatchObject({ state: 'done', attempts: 1 });
    expect(withMsg(lines.slice(before), 'job bookkeeping landed')).toEqual([
      expect.objectContaining({ jobId: id, bookkeeping: 'finish' }),
    ]);
    expect(ran).toBe(1);
  });

  it('a deferral held while the database is away is dropped when another worker took the job over', async () => {
    const deps = t.runtime.deps;
    const [queued] = await enqueueJob(direct, { kind: 'probe', payload: {}, maxAttempts: 3 });
    const id = Number(queued!.id);
    const before = lines.length;
    const held = () => withMsg(lines.slice(before), 'job bookkeeping held').length > 0;
    const pass = runDueJobs(
      { ...deps, workerId: 'worker-a' },
      {
        probe: {
          run: async () => {
            await relay.cut();
            await deps.sql`select 1`;
          },
        },
      },
      1,
    );
    try {
      for (let i = 0; i < 100 && !held(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(held()).toBe(true);
      // A's lease runs out while it waits for the database; worker B takes the job (attempt 2)
      await direct`update jobs set locked_until = now() - interval '1 second' where id = ${id}`;
      expect((await claimJob(direct, 30, 'worker-b'))?.id).toBe(id);
    } finally {
      await relay.restore();
    }
    await pass;
    expect(await jobRow(direct, id)).toEqual({
      state: 'running',
      attempts: 2,
      lockedBy: 'worker-b',
    });
    expect(withMsg(lines.slice(before), 'job bookkeeping dropped')).toEqual([
      expect.objectContaining({
        level: 30,
        jobId: id,
        bookkeeping: 'defer',
        takenBy: 'worker-b',
        heldMs: expect.any(Number),
      }),
    ]);
  });

  it('a worker that stops while it holds bookkeeping stops at once and leaves the job to its lease', async () => {
    const deps = t.runtime.deps;
    const [queued] = await enqueueJob(direct, { kind: 'probe', payload: {}, maxAttempts: 3 });
    const id = Number(queued!.id);
    const before = lines.length;
    const seen = (prefix: string) => withMsg(lines.slice(before), prefix);
    const stop = startJobRunner(
      deps,
      {
        probe: {
          run: async () => {
            await relay.cut();
            await deps.sql`select 1`;
          },
        },
      },
      new WorkSignal(),
    );
    let stoppedInMs: number;
    try {
      for (let i = 0; i < 100 && !seen('job bookkeeping held').length; i++)
        await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await stop();
      stoppedInMs = Date.now() - started;
    } finally {
      await relay.restore();
    }
    expect(stoppedInMs).toBeLessThan(1_000);
    expect(seen('job bookkeeping given up')).toEqual([
      expect.objectContaining({ level: 40, jobId: id, bookkeeping: 'defer' }),
    ]);
    // as a worker that died: still its claim, the attempt counted, due again when the lease ends
    expect(await jobRow(direct, id)).toMatchObject({ state: 'running', attempts: 1 });
  });
});
