import { hostname } from 'node:os';
import type postgres from 'postgres';
import type { Db, Sql } from '../db/index.js';

/**
 * Jobs in Postgres, of any kind: a kind, a JSON payload, attempts and a lease. A claim takes the
 * oldest due job with `FOR UPDATE SKIP LOCKED` (so several workers never take the same one) and
 * leases it; its worker renews the lease while it runs, so a job whose lease ran out (its worker
 * crashed) is due again, and soon after the crash. Attempts count claims,
 * so a job that keeps crashing its worker still ends.
 */
export type JobPayload = Record<string, unknown>;

export interface Job<P extends JobPayload = JobPayload> {
  id: number;
  kind: string;
  payload: P;
  attempts: number;
  maxAttempts: number;
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
  onError?(job: Job, err: unknown, final: boolean): Promise<void>;
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
  expiredLease: Date | null;
  expiredHolder: string | null;
}

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  payload: JSON.parse(r.payloadJson) as JobPayload,
  attempts: r.attempts,
  maxAttempts: r.maxAttempts,
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
      due.expired_lease, due.expired_holder`;
  return row && toJob(row);
}

/** Renews the lease of a job still running (its worker is alive); false when it no longer runs. */
export async function renewLease(sql: Db, id: number, leaseSeconds: number): Promise<boolean> {
  const rows = await sql`
    update jobs set locked_until = now() + make_interval(secs => ${leaseSeconds})
    where id = ${id} and state = 'running' returning 1 as ok`;
  return rows.length > 0;
}

/** Ends a job (a no-op when its handler already ended it in its own transaction). */
export async function finishJob(
  sql: Db,
  id: number,
  state: 'done' | 'failed',
  error?: string,
): Promise<void> {
  await sql`
    update jobs set state = ${state}, locked_until = null, last_error = ${error ?? null}, updated_at = now()
    where id = ${id} and state = 'running'`;
}

/** Back to the queue after `delayMs`. */
export async function retryJob(sql: Db, id: number, delayMs: number, error: string): Promise<void> {
  await sql`
    update jobs set state = 'queued', locked_until = null, last_error = ${error},
      run_after = now() + make_interval(secs => ${delayMs / 1000}), updated_at = now()
    where id = ${id}`;
}

/**
 * Puts a running job back without counting its attempt: it met an outage of what it reads (the
 * object store, the database), not a failure of its own, so it waits for the outage to end
 * instead of using up its attempts.
 */
export async function deferJob(sql: Db, id: number, delayMs: number, error: string): Promise<void> {
  await sql`
    update jobs set state = 'queued', attempts = attempts - 1, locked_until = null,
      last_error = ${error}, run_after = now() + make_interval(secs => ${delayMs / 1000}),
      updated_at = now()
    where id = ${id}`;
}

export function backoffMs(baseMs: number, attempt: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}
