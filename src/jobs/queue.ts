import { hostname } from 'node:os';
import type postgres from 'postgres';
import type { Db, Sql } from '../db/index.js';

/**
 * Jobs in Postgres, of any kind: a kind, a JSON payload, attempts and a lease. A claim takes the
 * oldest due job with `FOR UPDATE SKIP LOCKED` (so several workers never take the same one) and
 * leases it; its worker renews the lease while it runs, so a job whose lease ran out (its worker
 * crashed) is due again, and soon after the crash. Attempts count claims,
 * so a job that keeps crashing its worker still ends. A worker's later writes to a job it claimed
 * (its lease, its end) hold only while the job is still its own (`locked_by`): one whose lease ran
 * out while it stalled or lost the database leaves alone the job another worker took over.
 */
export type JobPayload = Record<string, unknown>;

export interface Job<P extends JobPayload = JobPayload> {
  id: number;
  kind: string;
  payload: P;
  attempts: number;
  maxAttempts: number;
  /**
   * The worker that claimed it (`locked_by`, WORKER_ID by default): a handler that ends the job
   * itself passes it to `finishJob`, so a run whose lease ran out leaves alone the job another
   * worker took over.
   */
  holder: string;
  /** Claimed again after its lease ran out (its worker stopped or lost the database): when it ended. */
  leaseExpiredAt?: Date;
  /** …and the worker that held that lease (WORKER_ID), when it was recorded (migration 456). */
  previousHolder?: string;
}

/** This process as a lease holder: an operator finds the worker by host and process id. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

/**
 * What runs one kind of job. `run` may end the job itself inside its own transaction (with
 * `finishJob(tx, …)`) so its writes and the job's end commit together; otherwise the job ends
 * `done` when `run` returns. When `run` throws, the job is retried with exponential backoff until
 * its attempts are used up; `onError` hears of every failure (`final` on the last) so the kind can
 * record it for operators.
 */
export interface JobHandler {
  run(job: Job): Promise<void>;
  /** `sql` is the transaction that ends the job: the record and the job's end commit together. */
  onError?(job: Job, err: unknown, final: boolean, sql: Db): Promise<void>;
}

export type JobHandlers = Record<string, JobHandler>;

export interface NewJob {
  kind: string;
  payload: JobPayload;
  /** At most one open (queued or running) job per kind and key. */
  key?: string;
  /** The item the job is about, if any: purging the item removes its jobs. */
  itemId?: string;
  maxAttempts: number;
}

/**
 * The insert of a new job, as a statement or a CTE of a larger one (then `when`, a boolean SQL
 * expression, says whether to queue it); an open job with the same kind and key makes it a no-op.
 */
export function enqueueJob(
  sql: Db,
  job: NewJob,
  when: postgres.PendingQuery<postgres.Row[]> = sql`true`,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`
    insert into jobs (kind, payload, key, item_id, max_attempts)
    select ${job.kind}, ${sql.json(job.payload as postgres.JSONValue)}, ${job.key ?? null},
           ${job.itemId ?? null}::uuid, ${job.maxAttempts}
    where ${when}
    on conflict (kind, key) where key is not null and state in ('queued', 'running') do nothing
    returning id`;
}

interface JobRow {
  id: number;
  kind: string;
  payloadJson: string;
  attempts: number;
  maxAttempts: number;
  lockedBy: string;
  expiredLease: Date | null;
  expiredHolder: string | null;
}

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  payload: JSON.parse(r.payloadJson) as JobPayload,
  attempts: r.attempts,
  maxAttempts: r.maxAttempts,
  holder: r.lockedBy,
  ...(r.expiredLease && { leaseExpiredAt: r.expiredLease }),
  ...(r.expiredLease && r.expiredHolder && { previousHolder: r.expiredHolder }),
});

/** Claims the oldest due job for `holder` (recorded with the lease), if any. */
export async function claimJob(
  sql: Sql,
  leaseSeconds: number,
  holder: string = WORKER_ID,
): Promise<Job | undefined> {
  const [row] = await sql<JobRow[]>`
    with due as (
      select id, case when state = 'running' then locked_until end as expired_lease,
        case when state = 'running' then locked_by end as expired_holder from jobs
      where (state = 'queued' and run_after <= now()) or (state = 'running' and locked_until < now())
      order by run_after, id
      limit 1
      for update skip locked
    )
    update jobs j set state = 'running', attempts = attempts + 1,
      locked_until = now() + make_interval(secs => ${leaseSeconds}), locked_by = ${holder},
      updated_at = now()
    from due where j.id = due.id
    returning j.id, j.kind, j.payload::text as payload_json, j.attempts, j.max_attempts,
      j.locked_by, due.expired_lease, due.expired_holder`;
  return row && toJob(row);
}

/**
 * Renews the lease of a job `holder` still runs; false when it no longer does (it ended, or its
 * lease ran out and another worker took it over).
 */
export async function renewLease(
  sql: Db,
  id: number,
  holder: string,
  leaseSeconds: number,
): Promise<boolean> {
  const rows = await sql`
    update jobs set locked_until = now() + make_interval(secs => ${leaseSeconds})
    where id = ${id} and state = 'running' and locked_by = ${holder} returning 1 as ok`;
  return rows.length > 0;
}

/**
 * Who last claimed the job and whether it still runs, locking its row for the rest of the
 * transaction (undefined once it was purged): a worker's bookkeeping commits only on a job it
 * still holds.
 */
export async function lockJob(
  tx: Db,
  id: number,
): Promise<{ state: string; lockedBy: string | null } | undefined> {
  const [row] = await tx<{ state: string; lockedBy: string | null }[]>`
    select state, locked_by from jobs where id = ${id} for update`;
  return row;
}

/**
 * Ends a running job (a no-op when its handler already ended it in its own transaction); with
 * `holder`, only while that worker still holds it. True when it ended it.
 */
export async function finishJob(
  sql: Db,
  id: number,
  state: 'done' | 'failed',
  error?: string,
  holder?: string,
): Promise<boolean> {
  const rows = await sql`
    update jobs set state = ${state}, locked_until = null, last_error = ${error ?? null}, updated_at = now()
    where id = ${id} and state = 'running' and (${holder ?? null}::text is null or locked_by = ${holder ?? null})
    returning 1 as ok`;
  return rows.length > 0;
}

/**
 * Back to the queue after `delayMs`, if `holder` still runs it: a worker whose lease ran out
 * (it lost the database, or stalled) must not requeue the job another worker took over, nor give
 * back that worker's attempt. With `keepAttempt` the attempt is not counted: the job met an
 * outage of what it reads (the object store, the database) or a lock held elsewhere, not a
 * failure of its own, so it waits for that to end instead of using up its attempts.
 */
export async function requeueJob(
  sql: Db,
  id: number,
  holder: string,
  delayMs: number,
  error: string,
  { keepAttempt = false } = {},
): Promise<void> {
  await sql`
    update jobs set state = 'queued', attempts = attempts - ${keepAttempt ? 1 : 0},
      locked_until = null, last_error = ${error},
      run_after = now() + make_interval(secs => ${delayMs / 1000}), updated_at = now()
    where id = ${id} and state = 'running' and locked_by = ${holder}`;
}

export function backoffMs(baseMs: number, attempt: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}
