import type { Db, Sql } from '../db/index.js';

/**
 * Jobs in Postgres. A claim takes the oldest due job with `FOR UPDATE SKIP LOCKED` (so several
 * workers never take the same one) and leases it; a job whose lease ran out (its worker crashed)
 * is due again. Attempts count claims, so a job that keeps crashing its worker still ends.
 */
export interface Job {
  id: number;
  kind: 'scan';
  itemId: string;
  attempts: number;
  maxAttempts: number;
}

export async function claimJob(sql: Sql, leaseSeconds: number): Promise<Job | undefined> {
  return sql.begin(async (tx) => {
    const [job] = await tx<Job[]>`
      select id, kind, item_id, attempts, max_attempts from jobs
      where (state = 'queued' and run_after <= now()) or (state = 'running' and locked_until < now())
      order by run_after, id
      limit 1
      for update skip locked`;
    if (!job) return undefined;
    const [claimed] = await tx<Job[]>`
      update jobs set state = 'running', attempts = attempts + 1,
        locked_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
      where id = ${job.id}
      returning id, kind, item_id, attempts, max_attempts`;
    if (claimed?.kind === 'scan') {
      await tx`update items set status = 'scanning', updated_at = now() where id = ${claimed.itemId} and status = 'pending_scan'`;
    }
    return claimed;
  });
}

export async function finishJob(
  sql: Db,
  id: number,
  state: 'done' | 'failed',
  error?: string,
): Promise<void> {
  await sql`update jobs set state = ${state}, locked_until = null, last_error = ${error ?? null}, updated_at = now() where id = ${id}`;
}

/** Back to the queue after `delayMs` (exponential backoff is the caller's choice). */
export async function retryJob(sql: Db, id: number, delayMs: number, error: string): Promise<void> {
  await sql`
    update jobs set state = 'queued', locked_until = null, last_error = ${error},
      run_after = now() + make_interval(secs => ${delayMs / 1000}), updated_at = now()
    where id = ${id}`;
}

export function backoffMs(baseMs: number, attempt: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}
