import type { Logger } from 'pino';
import { unreachableQuery } from '../db/unreachable.js';

/** A periodic task (reconcile payments, purge listings, forward payouts...). */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  /** First run after this delay (default: at once). */
  firstAfterMs?: number;
  /** Runs one pass; what it returns is logged when it did something (any truthy count). */
  run(): Promise<Record<string, number> | void>;
}

/**
 * One scheduler for every periodic task: each runs, then waits its interval; a failure is logged
 * and the task runs again at its next turn. Tasks are idempotent and guarded in SQL, so replicas
 * and workers may run them side by side. Returns a stopper that waits for running passes.
 */
export function startScheduler(tasks: PeriodicTask[], logger: Logger): () => Promise<void> {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  const schedule = (task: PeriodicTask, delay: number) => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      const pass = task
        .run()
        .then((report) => {
          if (report && Object.values(report).some((n) => n > 0))
            logger.info({ task: task.name, ...report }, `${task.name} pass`);
        })
        .catch((err: unknown) => {
          // a Postgres restart: one warn line with its reason, as the job runner's (no stack); a
          // task's other clients (a facilitator, the chain's RPC, the object store) raise the same
          // socket codes, and their failures keep their stack, as on the request path
          const reason = unreachableQuery(err);
          if (reason)
            logger.warn(
              { task: task.name, reason },
              `${task.name} pass failed: the database is out of reach, trying again`,
            );
          else logger.error({ err, task: task.name }, `${task.name} pass failed`);
        })
        .finally(() => {
          running.delete(pass);
          schedule(task, task.everyMs);
        });
      running.add(pass);
    }, delay);
    timers.add(t);
  };
  for (const task of tasks) schedule(task, task.firstAfterMs ?? 0);
  return async () => {
    stopped = true;
    for (const t of timers) clearTimeout(t);
    await Promise.all([...running]);
  };
}
