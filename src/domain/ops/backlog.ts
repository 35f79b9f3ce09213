import type { Db } from '../../db/index.js';
import { unresolvedPayment } from '../payments/store.js';

/**
 * What an operator watches pile up, read on each metrics scrape (cached a few seconds by the
 * caller): payments not resolved (`unresolvedPayment`: the partial indexes
 * x402_payments_unresolved and x402_payments_undecided_failures hold exactly these rows) and open background jobs (the partial indexes jobs_due and
 * jobs_leased). Both stay small in a healthy deployment, so the query costs well under a
 * millisecond.
 */
export async function readBacklog(sql: Db): Promise<{
  unresolved: number;
  oldestUnresolvedSeconds: number;
  jobs: { kind: string; state: string; count: number }[];
}> {
  const [[payments], jobs] = await Promise.all([
    sql<{ unresolved: number; oldest: number | null }[]>`
      select count(*)::int as unresolved,
             extract(epoch from now() - min(created_at))::float8 as oldest
      from x402_payments where ${unresolvedPayment(sql)}`,
    sql<{ kind: string; state: string; count: number }[]>`
      select kind, state, count(*)::int as count from jobs
      where state in ('queued', 'running') group by kind, state order by kind, state`,
  ]);
  return {
    unresolved: payments?.unresolved ?? 0,
    oldestUnresolvedSeconds: Math.max(0, payments?.oldest ?? 0),
    jobs: [...jobs],
  };
}
