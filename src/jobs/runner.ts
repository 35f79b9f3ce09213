import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Sql } from '../db/index.js';
import { unreachableDatabase, unreachableQuery } from '../db/unreachable.js';
import { AppError } from '../errors.js';
import {
  backoffMs,
  claimJob,
  deferJob,
  finishJob,
  renewLease,
  retryJob,
  type Job,
  type JobHandlers,
} from './queue.js';

export interface RunnerDeps {
  sql: Sql;
  logger: Logger;
  config: { SCAN_LEASE_SECONDS: number; SCAN_RETRY_BASE_MS: number; WORKER_POLL_MS: number };
  /** This worker as a lease holder (default WORKER_ID: host and process id). */
  workerId?: string;
}

/**
 * The port through which code that queues work wakes a worker in this process at once (other
 * processes find the job by polling within WORKER_POLL_MS).
 */
export class WorkSignal {
  private readonly emitter = new EventEmitter();
  wake(): void {
    this.emitter.emit('job');
  }
  onWake(listener: () => void): () => void {
    this.emitter.on('job', listener);
    return () => this.emitter.off('job', listener);
  }
}

/** Claims and runs due jobs until none is left (or `max` ran); returns how many ran. */
export async function runDueJobs(
  deps: RunnerDeps,
  handlers: JobHandlers,
  max = Infinity,
): Promise<number> {
  let n = 0;
  while (n < max) {
    const job = await claimJob(deps.sql, deps.config.SCAN_LEASE_SECONDS, deps.workerId);
    if (!job) break;
    n++;
    if (job.leaseExpiredAt) {
      // no process holds it any more: the one whose lease ran out stopped or lost the database
      deps.logger.warn(
        {
          jobId: job.id,
          kind: job.kind,
          attempt: job.attempts,
          maxAttempts: job.maxAttempts,
          leaseExpiredAt: job.leaseExpiredAt.toISOString(),
          // the worker that stopped or lost the database (unknown for a lease taken before 456)
          previousHolder: job.previousHolder ?? null,
        },
        'reclaimed a job whose lease expired (its worker stopped or lost the database): running it again',
      );
    }
    await runOne(deps, handlers, job);
  }
  return n;
}

async function runOne(deps: RunnerDeps, handlers: JobHandlers, job: Job): Promise<void> {
  const handler = handlers[job.kind];
  try {
    if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
    // Claimed again after its last attempt: its worker died during every one (a job that kills
    // its process, e.g. out of memory). It ends here, as a failure, instead of looping.
    if (job.attempts > job.maxAttempts)
      throw new Error(`its worker died during each of its ${job.maxAttempts} attempts`);
    await whileLeased(deps, job, () => handler.run(job));
    await finishJob(deps.sql, job.id, 'done');
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    const final = job.attempts >= job.maxAttempts;
    try {
      const outage = outageOf(err);
      if (outage) {
        // not the job's fault: it waits, its attempts kept for failures of its own
        const delay = Math.max(deps.config.SCAN_RETRY_BASE_MS, MIN_OUTAGE_WAIT_MS);
        deps.logger.warn(
          { jobId: job.id, kind: job.kind, attempt: job.attempts, delay, reason: outage },
          'job waits: what it reads is out of reach; not counted as an attempt',
        );
        await deferJob(deps.sql, job.id, delay, `${outage}: ${message}`);
        return;
      }
      await handler?.onError?.(job, err, final);
      if (final) {
        deps.logger.error(
          { jobId: job.id, kind: job.kind, attempt: job.attempts, err: message },
          'job failed for the last time',
        );
        await finishJob(deps.sql, job.id, 'failed', message);
      } else {
        const delay = backoffMs(deps.config.SCAN_RETRY_BASE_MS, job.attempts);
        deps.logger.warn(
          { jobId: job.id, kind: job.kind, attempt: job.attempts, delay, err: message },
          'job failed; will retry',
        );
        await retryJob(deps.sql, job.id, delay, message);
      }
    } catch (bookkeeping) {
      // The database is gone: the lease runs out and the job is claimed again.
      const reason = unreachableDatabase(bookkeeping);
      if (reason) {
        deps.logger.warn(
          { reason, jobId: job.id },
          'job bookkeeping failed: the database is out of reach; the job runs again when its lease expires',
        );
      } else deps.logger.error({ err: bookkeeping, jobId: job.id }, 'job bookkeeping failed');
    }
  }
}

/** A deferred job is due again at the earliest after this, so one pass never spins on it. */
const MIN_OUTAGE_WAIT_MS = 1_000;

/**
 * Why a job's failure is an outage of what it reads rather than its own: the object store out of
 * reach or failing (503 `storage_unavailable`) or the database out of reach. Undefined otherwise.
 */
function outageOf(err: unknown): string | undefined {
  if (err instanceof AppError && err.code === 'storage_unavailable')
    return 'the object store is out of reach';
  const db = unreachableQuery(err);
  return db && `the database is out of reach (${db})`;
}

/**
 * Runs `fn` while renewing the job's lease every third of it, so the lease can be short (a dead
 * worker's job is taken up again soon) however long the job runs.
 */
async function whileLeased<T>(deps: RunnerDeps, job: Job, fn: () => Promise<T>): Promise<T> {
  const lease = deps.config.SCAN_LEASE_SECONDS;
  const timer = setInterval(
    () => {
      renewLease(deps.sql, job.id, lease).catch((err: unknown) =>
        deps.logger.warn({ err, jobId: job.id }, 'could not renew a job lease'),
      );
    },
    (lease * 1000) / 3,
  );
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The job loop: runs due jobs, then sleeps WORKER_POLL_MS or until `signal` wakes it. Returns its
 * stopper, which waits for the job in hand to finish.
 */
export function startJobRunner(
  deps: RunnerDeps,
  handlers: JobHandlers,
  signal: WorkSignal,
): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  const unsubscribe = signal.onWake(() => wake?.());
  const loop = (async () => {
    while (!stopped) {
      try {
        await runDueJobs(deps, handlers);
      } catch (err) {
        // the database restarting or out of reach: a line, no stack; the next pass tries again
        const reason = unreachableDatabase(err);
        if (reason) {
          deps.logger.warn(
            { reason, retryInMs: deps.config.WORKER_POLL_MS },
            'job pass failed: the database is out of reach, trying again',
          );
        } else deps.logger.error({ err }, 'job pass failed');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, deps.config.WORKER_POLL_MS);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
  })();
  return async () => {
    stopped = true;
    unsubscribe();
    wake?.();
    await loop;
  };
}
