import { connect } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { claimJob, enqueueJob } from '../../src/jobs/queue.js';
import { runDueJobs, startJobRunner, WorkSignal } from '../../src/jobs/runner.js';
import { startScheduler } from '../../src/jobs/scheduler.js';
import { freePort } from '../helpers/app.js';
import { captureLogs, expectOutOfReachWarnings, waitForLines } from '../helpers/logs.js';
import { databaseEnv } from '../helpers/postgres.js';

const config = { SCAN_LEASE_SECONDS: 30, SCAN_RETRY_BASE_MS: 1000, WORKER_POLL_MS: 20 };

/** What an operator reads in a worker's log when jobs change hands or the database goes away. */
describe('the job runner tells the operator', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(
      loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...(await databaseEnv()) }),
    );
  });
  afterAll(() => db?.close());

  it('which job it took over after another worker’s lease expired', async () => {
    const [queued] = await enqueueJob(db.sql, {
      kind: 'lease_probe',
      payload: {},
      maxAttempts: 3,
    });
    const id = Number(queued!.id);
    // worker A claimed it (attempt 1) and vanished: its lease ended a minute ago
    const claimed = await claimJob(db.sql, 60, 'worker-a.internal:4242');
    expect(claimed?.id).toBe(id);
    await db.sql`update jobs set locked_until = now() - interval '1 minute' where id = ${id}`;
    const { logger, lines } = captureLogs();
    let ran = 0;
    await runDueJobs(
      { sql: db.sql, logger, config, workerId: 'worker-b.internal:99' },
      { lease_probe: { run: async () => void ran++ } },
    );
    expect(ran).toBe(1);
    const reclaimed = lines.filter((l) => l.msg?.startsWith('reclaimed a job whose lease expired'));
    expect(reclaimed).toEqual([
      expect.objectContaining({
        level: 40,
        jobId: id,
        kind: 'lease_probe',
        attempt: 2,
        maxAttempts: 3,
        leaseExpiredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        // the worker whose lease ran out, as it recorded itself when it claimed the job
        previousHolder: 'worker-a.internal:4242',
      }),
    ]);
    const [row] = await db.sql<{ lockedBy: string }[]>`select locked_by from jobs where id = ${id}`;
    expect(row!.lockedBy).toBe('worker-b.internal:99');
    // a job claimed from the queue is not a takeover
    await enqueueJob(db.sql, { kind: 'lease_probe', payload: {}, maxAttempts: 3 });
    await runDueJobs(
      { sql: db.sql, logger, config },
      { lease_probe: { run: async () => void ran++ } },
    );
    expect(ran).toBe(2);
    expect(lines.filter((l) => l.msg?.startsWith('reclaimed'))).toHaveLength(1);
  });

  it('that the database is out of reach, in one warn line without a stack (a Postgres restart)', async () => {
    // nothing listens on this port: every pass meets ECONNREFUSED, as while Postgres restarts
    const gone = postgres(`postgres://u:p@127.0.0.1:${await freePort()}/db`, {
      max: 1,
      onnotice: () => {},
    });
    const { logger, lines } = captureLogs();
    const stop = startJobRunner({ sql: gone, logger, config }, {}, new WorkSignal());
    try {
      await waitForLines(lines, 2);
    } finally {
      await stop();
      await gone.end({ timeout: 0 });
    }
    expectOutOfReachWarnings(
      lines,
      'job pass failed: the database is out of reach, trying again',
      /ECONNREFUSED/,
    );
  });
});

describe('a periodic task tells the operator', () => {
  it('that the database is out of reach, in one warn line without a stack (the reconciler during a Postgres restart)', async () => {
    const gone = postgres(`postgres://u:p@127.0.0.1:${await freePort()}/db`, {
      max: 1,
      onnotice: () => {},
    });
    const { logger, lines } = captureLogs();
    const stop = startScheduler(
      [{ name: 'reconcile', everyMs: 20, run: async () => void (await gone`select 1`) }],
      logger,
    );
    try {
      await waitForLines(lines, 2);
    } finally {
      await stop();
      await gone.end({ timeout: 0 });
    }
    expectOutOfReachWarnings(
      lines,
      'reconcile pass failed: the database is out of reach, trying again',
      /ECONNREFUSED/,
      { task: 'reconcile' },
    );
  });

  it("that another client of the task was refused (the chain's RPC, a facilitator) as an error with its stack, not as the database", async () => {
    const port = await freePort();
    const refused = () =>
      new Promise<void>((_resolve, reject) => connect(port, '127.0.0.1').on('error', reject));
    const { logger, lines } = captureLogs();
    const stop = startScheduler([{ name: 'payouts', everyMs: 20, run: refused }], logger);
    try {
      await waitForLines(lines, 1);
    } finally {
      await stop();
    }
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toEqual(
      expect.objectContaining({
        level: 50,
        task: 'payouts',
        msg: 'payouts pass failed',
        err: expect.objectContaining({ code: 'ECONNREFUSED' }),
      }),
    );
  });
});
