import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { CHAINS, type Chain } from '../../wire/chains.js';
import type { Telemetry } from '../telemetry.js';
import { forwardable, type PayoutRail } from './rail.js';

/** Payout addresses read per balance call. */
const BATCH = 500;

export interface PayoutJobDeps {
  sql: Db;
  payoutRail: PayoutRail;
  logger: Pick<Logger, 'warn' | 'error'>;
  config: { PAYOUT_LEASE_SECONDS: number };
  telemetry?: Pick<Telemetry, 'payout'>;
}

/**
 * One pass of the payout job (spec 1.9: normally within 15 minutes): per chain, the balances of
 * every payout address in batched reads; each one holding more than the dust is forwarded through
 * the rail and recorded in `payouts` (chain, transaction, gross, seller and platform shares).
 *
 * A payout never runs twice for one balance, even with several workers: a worker forwards an
 * address only while it holds that (chain, address)'s lease (`payout_leases`, taken by one
 * upsert; a crashed worker's lease expires after PAYOUT_LEASE_SECONDS), and the rail forwards
 * what the address holds when it runs, not what was read before the lease was taken, so a worker
 * that comes second finds only the dust and records nothing.
 */
export async function runPayouts(
  deps: PayoutJobDeps,
  holder: string = randomUUID(),
): Promise<{ paid: number; failed: number; busy: number }> {
  const report = { paid: 0, failed: 0, busy: 0 };
  for (const chain of CHAINS) {
    const rows = await deps.sql<{ address: string; sellerBps: number; platformBps: number }[]>`
      select lower(address) as address, seller_bps, platform_bps
      from payout_addresses where chain = ${chain} and deployed_at is not null order by 1`;
    for (let i = 0; i < rows.length; i += BATCH) {
      const slice = rows.slice(i, i + BATCH);
      const batch = slice.map((r) => r.address);
      let balances: Map<string, bigint>;
      try {
        balances = await deps.payoutRail.balances(chain, batch);
      } catch (err) {
        deps.logger.warn({ err, chain }, 'payout balances unavailable; next pass retries');
        report.failed += batch.length;
        deps.telemetry?.payout(chain, 'failed', batch.length);
        continue;
      }
      for (const { address, sellerBps, platformBps } of slice) {
        // Only what the contract would forward: the dust and a lone remainder unit stay.
        const { grossRaw } = forwardable(balances.get(address) ?? 0n, { sellerBps, platformBps });
        if (grossRaw === 0n) continue;
        const outcome = await payOne(deps, chain, address, holder);
        if (outcome !== 'nothing') report[outcome]++;
        if (outcome !== 'nothing') deps.telemetry?.payout(chain, outcome);
      }
    }
  }
  return report;
}

async function payOne(
  deps: PayoutJobDeps,
  chain: Chain,
  address: string,
  holder: string,
): Promise<'paid' | 'failed' | 'busy' | 'nothing'> {
  const { sql } = deps;
  const [lease] = await sql`
    insert into payout_leases (chain, payout_address, holder, leased_until)
    values (${chain}, ${address}, ${holder},
            now() + make_interval(secs => ${deps.config.PAYOUT_LEASE_SECONDS}))
    on conflict (chain, payout_address) do update
      set holder = excluded.holder, leased_until = excluded.leased_until
      where payout_leases.leased_until < now()
    returning holder`;
  if (!lease) return 'busy';
  try {
    const res = await deps.payoutRail.distribute(chain, address);
    // another worker forwarded it between our read and our lease
    if (res.grossRaw === 0n) return 'nothing';
    await sql`
      insert into payouts (agent_id, chain, payout_address, tx_hash, gross_raw, seller_raw, platform_raw)
      select agent_id, ${chain}, ${address}, ${res.txHash}, ${res.grossRaw.toString()}::numeric,
             ${res.sellerRaw.toString()}::numeric, ${res.platformRaw.toString()}::numeric
      from payout_addresses where chain = ${chain} and lower(address) = ${address}`;
    return 'paid';
  } catch (err) {
    deps.logger.error({ err, chain, address }, 'payout failed; next pass retries');
    return 'failed';
  } finally {
    await sql`delete from payout_leases
              where chain = ${chain} and payout_address = ${address} and holder = ${holder}`;
  }
}
