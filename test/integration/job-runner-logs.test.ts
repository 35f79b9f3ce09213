import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { PaymentProcessor } from '../../src/domain/payments/processor.js';
import { reconcilePayments } from '../../src/domain/payments/reconciler.js';
import { PaymentStore, type PaymentRow } from '../../src/domain/payments/store.js';
import { claimJob, enqueueJob } from '../../src/jobs/queue.js';
import { runDueJobs, startJobRunner, WorkSignal } from '../../src/jobs/runner.js';
import { startScheduler } from '../../src/jobs/scheduler.js';
import { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { paymentNetworks } from '../../src/x402/networks.js';
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

  it('that the database went away in the middle of a reconciler pass, in one warn line per pass, not an error with a stack per payment', async () => {
    // The pass read its open claims, then Postgres went away (a restart): each claim's question
    // to the ledger meets ECONNREFUSED. The pass ends at the first and its scheduler says so once.
    const gone = postgres(`postgres://u:p@127.0.0.1:${await freePort()}/db`, {
      max: 1,
      onnotice: () => {},
    });
    const { logger, lines } = captureLogs();
    const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true' });
    const store = new PaymentStore(gone);
    const claims = [1, 2, 3].map((n) => openClaim(`0x${String(n).repeat(64)}`));
    store.unfinished = async () => claims;
    const processor = new PaymentProcessor(
      store,
      new LocalFacilitator(gone, paymentNetworks(config), { startBalanceMicro: 0, skewSeconds: 0 }),
      { retryAfterSeconds: 1, staleSeconds: 0, chainClockGraceSeconds: 0, logger },
    );
    const reconcile = async () => ({
      ...(await reconcilePayments(processor, {
        staleSeconds: 0,
        alertAfterSeconds: 600,
        logger,
        paymentIdRetentionSeconds: 0,
      })),
    });
    const stop = startScheduler([{ name: 'reconcile', everyMs: 20, run: reconcile }], logger);
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

/** A purchase's claim left `settling` by a request that is gone, as the reconciler reads it. */
function openClaim(nonce: string): PaymentRow {
  const at = new Date(Date.now() - 3600_000);
  return {
    id: randomUUID(),
    operation: 'acquire',
    resource: 'http://127.0.0.1/api/v1/items/x/acquire',
    payer: `0x${'b'.repeat(40)}`,
    nonce,
    network: 'eip155:8453',
    asset: `0x${'c'.repeat(40)}`,
    payTo: `0x${'d'.repeat(40)}`,
    amountMicro: 500_000,
    validBefore: new Date(Date.now() + 300_000),
    status: 'settling',
    transaction: null,
    contextJson: '{}',
    settlementJson: null,
    resultJson: null,
    errorCode: null,
    errorReason: null,
    requestDigest: null,
    failureFinalAt: null,
    recheckedAt: null,
    answeredAt: null,
    createdAt: at,
    updatedAt: at,
    version: '1',
  };
}
