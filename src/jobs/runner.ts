import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db, Sql } from '../db/index.js';
import {
  reconnectDelaySeconds,
  statementCancelled,
  unreachableDatabase,
  unreachableQuery,
} from '../db/unreachable.js';
import { AppError } from '../errors.js';
import {
  backoffMs,
  claimJob,
  finishJob,
  lockJob,
  renewLease,
  requeueJob,
  WORKER_ID,
  type Job,
  type JobHandler,
  type JobHandlers,
} from './queue.js';

export interface RunnerDeps {
  sql: Sql;
  logger: Logger;
  config: { SCAN_LEASE_SECONDS: number; SCAN_RETRY_BASE_MS: number; WORKER_POLL_MS: number };
  /** This worker as a lease holder (default WORKER_ID: host and process id). */
  workerId?: string;
  /**
   * Aborted when the worker stops: bookkeeping it holds while the database is out of reach is
   * given up (the job runs again when its lease expires), so a stop never waits on the database.
   */
  signal?: AbortSignal;
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
  const holder = deps.workerId ?? WORKER_ID;
  let end: Bookkeeping;
  try {
    if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
    // Claimed again after its last attempt: its worker died during every one (a job that kills
    // its process, e.g. out of memory). It ends here, as a failure, instead of looping.
    if (job.attempts > job.maxAttempts)
      throw new Error(`its worker died during each of its ${job.maxAttempts} attempts`);
    await whileLeased(deps, job, holder, () => handler.run(job));
    end = { action: 'finish', write: (tx) => finishJob(tx, job.id, 'done', undefined, holder) };
  } catch (err) {
    end = afterFailure(deps, handler, job, holder, err);
  }
  await land(deps, job, end);
}

/** What ends a job in the database once its run is over: a write that can be tried again. */
interface Bookkeeping {
  action: 'finish' | 'defer' | 'retry' | 'fail';
  write(tx: Db): Promise<unknown>;
}

/** Logs a failed run and returns its bookkeeping: a wait for an outage, a retry or the end. */
function afterFailure(
  deps: RunnerDeps,
  handler: JobHandler | undefined,
  job: Job,
  holder: string,
  err: unknown,
): Bookkeeping {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  const outage = outageOf(err);
  if (outage) {
    // not the job's fault: it waits, its attempts kept for failures of its own
    const delay = Math.max(deps.config.SCAN_RETRY_BASE_MS, MIN_OUTAGE_WAIT_MS);
    const at = { jobId: job.id, kind: job.kind, attempt: job.attempts, delay };
    if (outage.timeout)
      deps.logger.warn(
        { ...at, timeout: outage.timeout, reason: outage.reason },
        `job waits: a statement was cancelled by ${outage.timeout} (waiting for a lock held elsewhere); not counted as an attempt`,
      );
    else
      deps.logger.warn(
        { ...at, reason: outage.reason },
        'job waits: what it reads is out of reach; not counted as an attempt',
      );
    return {
      action: 'defer',
      write: (tx) =>
        requeueJob(tx, job.id, holder, delay, `${outage.reason}: ${message}`, {
          keepAttempt: true,
        }),
    };
  }
  const final = job.attempts >= job.maxAttempts;
  const delay = backoffMs(deps.config.SCAN_RETRY_BASE_MS, job.attempts);
  if (final) {
    deps.logger.error(
      { jobId: job.id, kind: job.kind, attempt: job.attempts, err: message },
      'job failed for the last time',
    );
  } else {
    deps.logger.warn(
      { jobId: job.id, kind: job.kind, attempt: job.attempts, delay, err: message },
      'job failed; will retry',
    );
  }
  return {
    action: final ? 'fail' : 'retry',
    // the kind's record of the failure (the last one refuses a listing) commits with the job's end
    write: async (tx) => {
      await handler?.onError?.(job, err, final, tx);
      await (final
        ? finishJob(tx, job.id, 'failed', message, holder)
        : requeueJob(tx, job.id, holder, delay, message));
    },
  };
}

/**
 * Writes a job's bookkeeping, in one transaction and only while this worker still holds the job:
 * a worker whose lease ran out (it lost the database, or stalled) leaves alone the job another
 * worker took over. When the database is out of reach (a Postgres restart or failover, the
 * network), the worker keeps the bookkeeping and tries again at the pool's reconnect cadence until
 * the database answers: left to the lease, a deferral counted the attempt after all (the next
 * claim counts one), so a listing whose scans met a few restarts was refused `processing_error`,
 * and a finished job ran again. The worker takes nothing else meanwhile (it could not claim
 * anything either). If it stops, or dies, first, the job runs again when its lease expires and the
 * attempt counts, as for any worker that died: a job that kills its worker still ends.
 */
async function land(deps: RunnerDeps, job: Job, end: Bookkeeping): Promise<void> {
  const holder = deps.workerId ?? WORKER_ID;
  const at = { jobId: job.id, kind: job.kind, attempt: job.attempts, bookkeeping: end.action };
  let heldSince: number | undefined;
  for (let tries = 1; ; tries++) {
    let takenBy: string | null | undefined;
    try {
      takenBy = await deps.sql.begin(async (tx) => {
        const row = await lockJob(tx, job.id);
        // purged meanwhile (its item deleted), or ended by its own run's transaction
        if (!row || (row.lockedBy === holder && row.state !== 'running')) return undefined;
        if (row.lockedBy !== holder) return row.lockedBy;
        await end.write(tx);
        return undefined;
      });
    } catch (err) {
      // a cancelled bookkeeping statement waited for a lock held elsewhere (a migration's on
      // `items`, whose rows a kind's failure record reads): held like an outage, not dropped
      // with the job left running until its lease ran out and the next claim counted an attempt;
      // it rolled back whole, so it is written again as it is
      const cancelled = statementCancelled(err);
      const reason = unreachableDatabase(err) ?? cancelled?.reason;
      if (!reason) {
        deps.logger.error({ err, ...at }, 'job bookkeeping failed');
        return;
      }
      if (heldSince === undefined) {
        heldSince = Date.now();
        if (cancelled)
          deps.logger.warn(
            { ...at, timeout: cancelled.timeout, reason },
            `job bookkeeping held: cancelled by ${cancelled.timeout} (waiting for a lock held elsewhere); trying again until it lands`,
          );
        else
          deps.logger.warn(
            { ...at, reason },
            'job bookkeeping held: the database is out of reach; trying again until it answers',
          );
      }
      if (deps.signal?.aborted) {
        deps.logger.warn(
          { ...at, heldMs: Date.now() - heldSince },
          'job bookkeeping given up: the worker stops; the job runs again when its lease expires',
        );
        return;
      }
      // the pool's reconnect cadence; a stop ends the wait at once
      await sleep(reconnectDelaySeconds(tries) * 1000, undefined, { signal: deps.signal }).catch(
        () => {},
      );
      continue;
    }
    const heldMs = heldSince === undefined ? {} : { heldMs: Date.now() - heldSince };
    if (takenBy !== undefined) {
      // its lease ran out and another worker claimed it: the job and its attempt are that
      // worker's now
      deps.logger[heldSince === undefined ? 'warn' : 'info'](
        { ...at, ...heldMs, takenBy },
        'job bookkeeping dropped: another worker took the job over after its lease ran out',
      );
    } else if (heldSince !== undefined) {
      deps.logger.info({ ...at, ...heldMs }, 'job bookkeeping landed: the database answers again');
    }
    return;
  }
}

/** A deferred job is due again at the earliest after this, so one pass never spins on it. */
const MIN_OUTAGE_WAIT_MS = 1_000;

/**
 * Why a job's failure is an outage of what it reads rather than its own: the object store out of
 * reach or failing (503 `storage_unavailable`), the database out of reach, or a statement the
 * database cancelled by its `statement_timeout` (`timeout` then names it). Undefined otherwise.
 *
 * A cancelled statement of a job waited for a lock held elsewhere (a migration's on `items`, an
 * operator's open transaction): counted, three such waits refused a paid listing
 * `processing_error` though nothing was wrong with it. It is deferred instead, its attempt kept.
 * The price: a scan statement that runs away on its own is deferred again and again, a warn line
 * each time, instead of ending the job; a listing waits rather than being refused for the
 * service's fault. A transaction ended idle (25P03) still counts: that is a hung transaction.
 */
function outageOf(err: unknown): { reason: string; timeout?: string } | undefined {
  if (err instanceof AppError && err.code === 'storage_unavailable')
    return { reason: 'the object store is out of reach' };
  const db = unreachableQuery(err);
  if (db) return { reason: `the database is out of reach (${db})` };
  const cancelled = statementCancelled(err);
  if (cancelled?.timeout === 'statement_timeout')
    return {
      reason: `a statement was cancelled by statement_timeout (${cancelled.reason})`,
      timeout: cancelled.timeout,
    };
  return undefined;
}

/**
 * Runs `fn` while renewing the job's lease every third of it, so the lease can be short (a dead
 * worker's job is taken up again soon) however long the job runs.
 */
async function whileLeased<T>(
  deps: RunnerDeps,
  job: Job,
  holder: string,
  fn: () => Promise<T>,
): Promise<T> {
  const lease = deps.config.SCAN_LEASE_SECONDS;
  let lost = false;
  const timer = setInterval(
    () => {
      renewLease(deps.sql, job.id, holder, lease).then(
        (held) => {
          // said once: the run goes on, but its outcome will be dropped (see land)
          if (held || lost) return;
          lost = true;
          deps.logger.warn(
            { jobId: job.id, kind: job.kind, attempt: job.attempts },
            'job lease lost: its lease ran out and another worker took the job over',
          );
        },
        (err: unknown) => {
          const reason = unreachableDatabase(err);
          if (reason)
            deps.logger.warn(
              { reason, jobId: job.id },
              'could not renew a job lease: the database is out of reach',
            );
          else deps.logger.warn({ err, jobId: job.id }, 'could not renew a job lease');
        },
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
  const stopping = new AbortController();
  const unsubscribe = signal.onWake(() => wake?.());
  const loop = (async () => {
    while (!stopped) {
      try {
        await runDueJobs({ ...deps, signal: stopping.signal }, handlers);
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
    stopping.abort();
    unsubscribe();
    wake?.();
    await loop;
  };
}
