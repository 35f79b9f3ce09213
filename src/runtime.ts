import type { Config } from './config.js';
import { openDatabase, type Database } from './db/index.js';
import { migrate } from './db/migrate.js';
import type { Deps } from './deps.js';
import { LISTING_FEE_OPERATION, listingFulfilment } from './domain/listings/listings.js';
import { createPayments } from './domain/payments/setup.js';
import { ensureVectorIndex } from './domain/search/vectors.js';
import { createEmbedder } from './embeddings/index.js';
import { createLogger } from './logger.js';
import { loadSecrets } from './secrets.js';
import { createBlobStore } from './storage/index.js';
import { runDueJobs, startJobRunner, WorkSignal, type JobHandlers } from './jobs/runner.js';
import { startScheduler, type PeriodicTask } from './jobs/scheduler.js';
import { SCAN_JOB, scanJobHandler } from './domain/scan/scan-job.js';
import { purgeDeleted } from './domain/listings/purge.js';
import type { Logger } from 'pino';

export interface Runtime {
  deps: Deps;
  db: Database;
  /** Runs the due background jobs now (tests and one-shot commands); returns how many ran. */
  runDueJobs(max?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and builds the shared dependencies. Used by every process
 * entry (serve, worker, migrate, reindex, demo, mcp) and by the tests.
 */
export async function createRuntime(
  config: Config,
  opts: { logger?: Logger; migrate?: boolean } = {},
): Promise<Runtime> {
  const logger = opts.logger ?? createLogger(config);
  const db = await openDatabase(config);
  try {
    if (opts.migrate !== false) {
      const res = await migrate(db.sql);
      if (res.applied.length) logger.info({ applied: res.applied }, 'migrations applied');
    }
    const embedder = createEmbedder(config);
    if (opts.migrate !== false) await ensureVectorIndex(db.sql, embedder.dimensions);
    const secrets = await loadSecrets(config);
    const deps: Deps = {
      config,
      sql: db.sql,
      logger,
      embedder,
      storage: createBlobStore(config),
      secrets,
      work: new WorkSignal(),
      ...createPayments(config, db.sql, logger, secrets),
    };
    // Selling: the listing fee's fulfilment creates the item and queues its scan (src/domain/listings/).
    deps.payments.define(LISTING_FEE_OPERATION, listingFulfilment(config));
    return {
      deps,
      db,
      runDueJobs: (max?: number) => runDueJobs(deps, jobHandlers(deps), max),
      async close() {
        await db.close();
      },
    };
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}

/** Every job kind and its handler. */
export function jobHandlers(deps: Deps): JobHandlers {
  return { [SCAN_JOB]: scanJobHandler(deps) };
}

/** Every periodic task: payment reconciliation, the retention purge. */
export function periodicTasks(deps: Deps): PeriodicTask[] {
  const { config } = deps;
  return [
    {
      name: 'reconcile',
      everyMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
      firstAfterMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
      run: async () => {
        const { completed, released } = await deps.payments.reconcile({
          staleSeconds: config.RECONCILE_STALE_SECONDS,
        });
        return { completed, released };
      },
    },
    {
      name: 'purge',
      everyMs: config.PURGE_INTERVAL_SECONDS * 1000,
      run: () => purgeDeleted(deps),
    },
  ];
}

/** The background work of a process: the job runner and the scheduler. Returns the stopper. */
export function startBackground(deps: Deps): () => Promise<void> {
  const stopJobs = startJobRunner(deps, jobHandlers(deps), deps.work);
  const stopTasks = startScheduler(periodicTasks(deps), deps.logger);
  return async () => {
    await stopJobs();
    await stopTasks();
  };
}
