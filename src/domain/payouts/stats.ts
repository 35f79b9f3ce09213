import { getAddress } from 'viem';
import type { Db } from '../../db/index.js';
import type { Agent } from '../accounts/accounts.js';
import { type Chain } from '../../wire/chains.js';
import { formatUsdc, USDC_DECIMALS, type Micro } from '../../wire/money.js';
import { ITEM_STATUSES, type ItemStatus } from '../../wire/listings.js';
import type { SellerStats } from '../../wire/payouts.js';

/**
 * `GET /api/v1/seller/stats` (spec 2.8): listing counts by status, completed sales (count, gross,
 * and the seller's share at the allocation of the payout address each sale was paid to, summed per
 * chain as the contract forwards it), and the ten latest sales.
 */
export async function sellerStats(sql: Db, agent: Agent): Promise<SellerStats> {
  const counts = await sql<{ status: ItemStatus; n: number }[]>`
    select status, count(*)::int as n from items
    where seller_id = ${agent.id} and purged_at is null group by status`;
  const items = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0])) as Record<ItemStatus, number>;
  for (const c of counts) items[c.status] = c.n;
  const total = counts.reduce((n, c) => n + c.n, 0);

  const byChain = await sql<{ chain: Chain; n: number; gross: string; sellerBps: number | null }[]>`
    select o.chain, count(*)::int as n, sum(o.amount_micro)::text as gross, p.seller_bps
    from orders o
    left join payout_addresses p on p.agent_id = o.seller_id and p.chain = o.chain
    where o.seller_id = ${agent.id} and o.status = 'completed'
    group by o.chain, p.seller_bps`;
  let count = 0;
  let gross = 0n;
  let share = 0n;
  for (const r of byChain) {
    count += r.n;
    gross += BigInt(r.gross);
    share += (BigInt(r.gross) * BigInt(r.sellerBps ?? 10_000)) / 10_000n;
  }

  const recent = await sql<
    {
      id: string;
      itemId: string;
      title: string;
      amount: Micro;
      chain: Chain;
      completedAt: Date;
    }[]
  >`
    select o.id, o.item_id, i.title, o.amount_micro as amount, o.chain, o.completed_at
    from orders o join items i on i.id = o.item_id
    where o.seller_id = ${agent.id} and o.status = 'completed'
    order by o.completed_at desc, o.id desc limit 10`;

  return {
    wallet_address: getAddress(agent.address),
    items: { ...items, total },
    revenue: {
      sales_count: count,
      by_currency:
        count === 0
          ? []
          : [
              {
                currency: 'USDC',
                decimals: USDC_DECIMALS,
                sales_count: count,
                gross_raw: gross.toString(),
                gross: formatUsdc(gross),
                seller_share_raw: share.toString(),
                seller_share: formatUsdc(share),
              },
            ],
    },
    recent_sales: recent.map((r) => ({
      order_id: r.id,
      item_id: r.itemId,
      title: r.title,
      currency: 'USDC',
      amount_raw: String(r.amount),
      amount: formatUsdc(r.amount),
      chain: r.chain,
      completed_at: r.completedAt.toISOString(),
    })),
  };
}
