import type { Sql } from '../../db/index.js';
import { unresolvedPayment } from '../payments/store.js';
import { toUsdc } from '../../wire/money.js';

/** One day of the overview's series (UTC days). */
export interface DayPoint {
  day: string;
  sales: number;
  sales_usdc: number;
  fees_usdc: number;
  active_listings: number;
}

export interface Overview {
  days: DayPoint[];
  totals: { sales: number; sales_usdc: number; fees_usdc: number; active_listings: number };
  scan_outcomes: { verdict: string; reason: string; count: number }[];
  pending_feedback: number;
  unresolved_settlements: number;
}

/**
 * The overview page's figures over the last `days` UTC days, all from the database: completed
 * sales and their volume, listing fees collected, listings active at each day's end, and the scan
 * outcomes of the period. (Search volume and errors by code are process counters, not rows.)
 */
export async function overview(sql: Sql, days = 30): Promise<Overview> {
  const rows = await sql<
    { day: Date; sales: number; salesMicro: string; feesMicro: string; active: number }[]
  >`
    with d as (
      select generate_series(date_trunc('day', now() at time zone 'utc') - make_interval(days => ${days - 1}),
                             date_trunc('day', now() at time zone 'utc'), interval '1 day') as day
    )
    select d.day,
      (select count(*)::int from orders o
        where o.completed_at at time zone 'utc' >= d.day
          and o.completed_at at time zone 'utc' < d.day + interval '1 day') as sales,
      (select coalesce(sum(o.amount_micro), 0)::text from orders o
        where o.completed_at at time zone 'utc' >= d.day
          and o.completed_at at time zone 'utc' < d.day + interval '1 day') as sales_micro,
      (select coalesce(sum(f.amount_micro), 0)::text from listing_fees f
        where f.paid_at at time zone 'utc' >= d.day
          and f.paid_at at time zone 'utc' < d.day + interval '1 day') as fees_micro,
      (select count(*)::int from items i
        where i.activated_at is not null
          and i.activated_at at time zone 'utc' < d.day + interval '1 day'
          and (i.deleted_at is null or i.deleted_at at time zone 'utc' >= d.day + interval '1 day')
          and i.status in ('active', 'deleted')) as active
    from d order by d.day`;
  const points = rows.map((r) => ({
    day: r.day.toISOString().slice(0, 10),
    sales: r.sales,
    sales_usdc: Number(r.salesMicro) / 1e6,
    fees_usdc: Number(r.feesMicro) / 1e6,
    active_listings: r.active,
  }));
  const scan = await sql<{ verdict: string; reason: string; count: number }[]>`
    select verdict, reason, count(*)::int as count from scan_results
    where created_at > now() - make_interval(days => ${days})
    group by verdict, reason order by count desc, verdict, reason`;
  const [now] = await sql<
    {
      active: number;
      pending: number;
      unresolved: number;
      sales: number;
      salesMicro: string;
      feesMicro: string;
    }[]
  >`
    select (select count(*)::int from items where status = 'active') as active,
           (select count(*)::int from item_feedback where moderation_status = 'pending') as pending,
           (select count(*)::int from x402_payments where ${unresolvedPayment(sql)}) as unresolved,
           (select count(*)::int from orders) as sales,
           (select coalesce(sum(amount_micro), 0)::text from orders) as sales_micro,
           (select coalesce(sum(amount_micro), 0)::text from listing_fees) as fees_micro`;
  return {
    days: points,
    totals: {
      sales: now!.sales,
      sales_usdc: toUsdc(Number(now!.salesMicro)),
      fees_usdc: toUsdc(Number(now!.feesMicro)),
      active_listings: now!.active,
    },
    scan_outcomes: scan,
    pending_feedback: now!.pending,
    unresolved_settlements: now!.unresolved,
  };
}
