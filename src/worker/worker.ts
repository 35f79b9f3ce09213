import { EventEmitter } from 'node:events';
import { runScanJob, type ScanDeps } from '../domain/scan/scan-job.js';
import { purgeDeleted } from './purge.js';
import { claimJob } from './jobs.js';

/** In-process wake-up: an upload in this process starts its scan without waiting for the poll. */
export const jobSignal = new EventEmitter();
export function notifyJobQueued(): void {
  jobSignal.emit('job');
}

/** Claims and runs due jobs until none is left; returns how many ran. Tests drive the queue with it. */
export async function runDueJobs(deps: ScanDeps, max = Infinity): Promise<number> {
  let n = 0;
  while (n < max) {
    const job = await claimJob(deps.sql, deps.config.SCAN_LEASE_SECONDS);
    if (!job) break;
    n++;
    try {
      await runScanJob(deps, job);
    } catch (err) {
      // Bookkeeping failed (database gone?): the lease expires and the job is claimed again.
      deps.logger.error({ err, jobId: job.id }, 'job bookkeeping failed');
    }
  }
  return n;
}

/**
 * The worker loop: runs due jobs, sleeps WORKER_POLL_MS (or until an in-process upload signals),
 * and purges deleted listings every PURGE_INTERVAL_SECONDS. Returns its stopper, which waits for
 * the job in hand to finish.
 */
export function startWorker(deps: ScanDeps): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  const onJob = () => wake?.();
  jobSignal.on('job', onJob);
  let lastPurge = 0;
  const loop = (async () => {
    while (!stopped) {
      try {
        await runDueJobs(deps);
        if (Date.now() - lastPurge >= deps.config.PURGE_INTERVAL_SECONDS * 1000) {
          lastPurge = Date.now();
          const purged = await purgeDeleted(deps);
          if (purged.deleted || purged.hidden) deps.logger.info(purged, 'deleted listings purged');
        }
      } catch (err) {
        deps.logger.error({ err }, 'worker pass failed');
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
    jobSignal.off('job', onJob);
    wake?.();
    await loop;
  };
}
