import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_LOCK_KEY } from '../../src/domain/scan/scan-job.js';
import { claimJob } from '../../src/jobs/queue.js';
import { runDueJobs } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/runtime.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { captureLogs } from '../helpers/logs.js';
import { databaseEnv, holdInSession, ON_POSTGRES } from '../helpers/postgres.js';
import {
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * A scan cut by the statement timeout while it waits for a lock held elsewhere (another worker's
 * activation, a migration's lock on `items`) is deferred with its attempt kept, and its
 * bookkeeping cut the same way is held and written again (docs/operating.md, "Statement and
 * idle-transaction timeouts"): the paid listing goes live once the lock is released, instead of
 * being refused `processing_error` after SCAN_MAX_ATTEMPTS such waits.
 */
describe.runIf(ON_POSTGRES)('a scan waiting on a lock past the statement timeout', () => {
  let t: SellingContext;
  let other: postgres.Sql;
  const { logger, lines } = captureLogs();
  beforeAll(async () => {
    const env = await databaseEnv();
    t = await startSellingApp({ ...env, DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' }, { logger });
    // one connection holds the lock, another looks on
    other = postgres(env.DATABASE_URL!, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await other?.end();
    await t?.close();
  });

  const jobOf = async (itemId: string) =>
    (
      await other<{ id: number; state: string; attempts: number }[]>`
        select id, state, attempts from jobs where item_id = ${itemId}`
    )[0]!;

  /**
   * More passes than the job has attempts while the lock is held (each made due at once, as a
   * worker would find it after its wait), the lock released after them, then passes until the
   * job ends.
   */
  async function scanBehind(itemId: string, release: () => Promise<void>) {
    const deps = t.runtime.deps;
    const passes = (async () => {
      for (let i = 0; i < t.config.SCAN_MAX_ATTEMPTS + 1; i++) {
        await runDueJobs(deps, jobHandlers(deps), 1);
        await other`update jobs set run_after = now() where item_id = ${itemId} and state = 'queued'`;
      }
    })();
    // past the passes' statement timeouts: main's build has used up the attempts by now
    await new Promise((r) => setTimeout(r, (t.config.SCAN_MAX_ATTEMPTS + 1) * 1_300));
    await release();
    await passes;
    for (let i = 0; i < 5 && (await jobOf(itemId)).state !== 'done'; i++) {
      await other`update jobs set run_after = now() where item_id = ${itemId} and state = 'queued'`;
      await runDueJobs(deps, jobHandlers(deps), 1);
    }
  }

  it('behind another activation: it waits its turn and the listing goes live', async () => {
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const from = lines.length;
    // another worker mid-activation, its remote embedder slow
    const release = await holdInSession(
      other,
      (tx) => tx`select pg_advisory_xact_lock(${ACTIVATION_LOCK_KEY})`,
    );
    await scanBehind(itemId, release);
    expect(await sellerStatus(t, seller, itemId)).toEqual({ status: 'active', reason: 'approved' });
    expect(await jobOf(itemId)).toMatchObject({ state: 'done', attempts: 1 });
    expect(lines.slice(from).filter((l) => l.level >= 50)).toEqual([]);
  }, 60_000);

  it('behind a migration holding items: it waits, attempts kept, and the listing goes live', async () => {
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const from = lines.length;
    const release = await holdInSession(
      other,
      (tx) => tx`lock table items in access exclusive mode`,
    );
    await scanBehind(itemId, release);
    expect(await sellerStatus(t, seller, itemId)).toEqual({ status: 'active', reason: 'approved' });
    const job = await jobOf(itemId);
    expect(job.state).toBe('done');
    expect(job.attempts).toBeLessThan(t.config.SCAN_MAX_ATTEMPTS);
    const after = lines.slice(from);
    expect(after.filter((l) => l.level >= 50)).toEqual([]);
    expect(after.filter((l) => l.msg?.startsWith('job waits: a statement was cancelled'))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 40, timeout: 'statement_timeout' }),
      ]),
    );
  }, 60_000);

  it('a failure whose record waits on a lock is held and written, not left to the lease', async () => {
    const deps = t.runtime.deps;
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const from = lines.length;
    // the scan fails on its own (an unreadable archive) while scan_results, where the kind
    // records the failure in the job's bookkeeping, is locked past the statement timeout
    const release = await holdInSession(
      other,
      (tx) => tx`lock table scan_results in exclusive mode`,
    );
    const broken: typeof deps.storage = Object.assign(
      Object.create(deps.storage) as typeof deps.storage,
      {
        createReadStream: () => {
          setTimeout(() => void release(), 2_500);
          return Promise.reject(new Error('the archive reader choked'));
        },
      },
    );
    await runDueJobs(deps, jobHandlers({ ...deps, storage: broken }), 1);
    // the retry landed once the lock was released: queued again, its failure recorded
    expect(await jobOf(itemId)).toMatchObject({ state: 'queued', attempts: 1 });
    const [recorded] = await other`
      select count(*)::int as n from scan_results where item_id = ${itemId} and verdict = 'error'`;
    expect(recorded!.n).toBe(1);
    const after = lines.slice(from);
    expect(after.filter((l) => l.level >= 50)).toEqual([]);
    expect(after.filter((l) => l.msg?.startsWith('job bookkeeping held'))).toEqual([
      expect.objectContaining({ level: 40, bookkeeping: 'retry', timeout: 'statement_timeout' }),
    ]);
    await other`update jobs set run_after = now() where item_id = ${itemId}`;
    await runDueJobs(deps, jobHandlers(deps), 1);
    expect(await sellerStatus(t, seller, itemId)).toEqual({ status: 'active', reason: 'approved' });
  }, 60_000);
});

/**
 * The scan handler ends its job itself (an item already decided or purged, an activation, a
 * refusal) only while its worker still holds it: a worker whose lease ran out mid-scan leaves
 * the job another worker took over as that worker has it.
 */
describe('a scan whose lease ran out mid-run', () => {
  let t: SellingContext;
  beforeAll(async () => {
    t = await startSellingApp({ ...(await databaseEnv()) });
  });
  afterAll(async () => t?.close());

  it('does not end the job another worker took over and runs', async () => {
    const deps = t.runtime.deps;
    const seller = newWallet();
    const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    let id = 0;
    const stalling: typeof deps.storage = Object.assign(
      Object.create(deps.storage) as typeof deps.storage,
      {
        createReadStream: async (key: string) => {
          // worker A stalls past its lease; worker B claims the job and runs it
          const [j] = await deps.sql<
            { id: number }[]
          >`select id from jobs where item_id = ${itemId}`;
          id = Number(j!.id);
          await deps.sql`update jobs set locked_until = now() - interval '1 second' where id = ${id}`;
          expect((await claimJob(deps.sql, 30, 'worker-b'))?.id).toBe(id);
          return deps.storage.createReadStream(key);
        },
      },
    );
    await runDueJobs(
      { ...deps, workerId: 'worker-a' },
      jobHandlers({ ...deps, storage: stalling }),
      1,
    );
    const [row] = await deps.sql`select state, attempts, locked_by from jobs where id = ${id}`;
    expect(row).toMatchObject({ state: 'running', attempts: 2, lockedBy: 'worker-b' });
  }, 60_000);
});
