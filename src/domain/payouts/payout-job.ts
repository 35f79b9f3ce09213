import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Sql } from '../../db/index.js';
import { noStatementTimeout } from '../../db/timeouts.js';
import {
  reconnectDelaySeconds,
  statementCancelled,
  unreachableDatabase,
} from '../../db/unreachable.js';
import { CHAINS, type Chain } from '../../wire/chains.js';
import type { Telemetry } from '../telemetry.js';
import { forwardable, type PayoutRail } from './rail.js';

/** Payout addresses read per balance call. */
const BATCH = 500;

export interface PayoutJobDeps {
  sql: Sql;
  payoutRail: PayoutRail;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
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
    let res: Awaited<ReturnType<PayoutRail['distribute']>>;
    try {
      res = await deps.payoutRail.distribute(chain, address);
    } catch (err) {
      deps.logger.error({ err, chain, address }, 'payout failed; next pass retries');
      return 'failed';
    }
    // another worker forwarded it between our read and our lease
    if (res.grossRaw === 0n) return 'nothing';
    await recordPayout(deps, chain, address, res);
    return 'paid';
  } finally {
    // a lease left behind (the database out of reach) expires after PAYOUT_LEASE_SECONDS
    await sql`delete from payout_leases
              where chain = ${chain} and payout_address = ${address} and holder = ${holder}`.catch(
      () => {},
    );
  }
}

/** How long a sent payout's record is tried again before it is left to the operator (below). */
const RECORD_HOLD_MS = 10 * 60_000;

/**
 * Records a payout the rail has sent. The money has moved, so the record must land: a pass that
 * comes later finds only the dust and would record nothing, and the seller's payout history and
 * stats would never show the transfer. It runs without the statement timeout (a migration's lock
 * on `payouts` is waited out, not cut), and while the database is out of reach it is tried again
 * until it answers, up to RECORD_HOLD_MS; `(chain, tx_hash)` is unique, so a try whose answer was
 * lost after its commit is not recorded twice. Past that, an error line carries everything the
 * record holds, for the operator to enter.
 */
async function recordPayout(
  deps: PayoutJobDeps,
  chain: Chain,
  address: string,
  res: Awaited<ReturnType<PayoutRail['distribute']>>,
): Promise<void> {
  const sent = {
    chain,
    address,
    txHash: res.txHash,
    grossRaw: res.grossRaw.toString(),
    sellerRaw: res.sellerRaw.toString(),
    platformRaw: res.platformRaw.toString(),
  };
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      await deps.sql.begin(async (tx) => {
        await noStatementTimeout(tx);
        await tx`
          insert into payouts (agent_id, chain, payout_address, tx_hash, gross_raw, seller_raw, platform_raw)
          select agent_id, ${chain}, ${address}, ${res.txHash}, ${sent.grossRaw}::numeric,
                 ${sent.sellerRaw}::numeric, ${sent.platformRaw}::numeric
          from payout_addresses where chain = ${chain} and lower(address) = ${address}
          on conflict (chain, tx_hash) do nothing`;
      });
      if (tries > 1)
        deps.logger.info(
          { ...sent, heldMs: Date.now() - started },
          'payout record landed: the database answers again',
        );
      return;
    } catch (err) {
      const reason = unreachableDatabase(err) ?? statementCancelled(err)?.reason;
      if (!reason || Date.now() - started > RECORD_HOLD_MS) {
        deps.logger.error(
          { err, ...sent },
          'payout sent but not recorded: enter it in payouts by hand (the fields of this line)',
        );
        return;
      }
      if (tries === 1)
        deps.logger.warn(
          { ...sent, reason },
          'payout sent; its record is held until the database answers',
        );
      await sleep(reconnectDelaySeconds(tries) * 1000);
    }
  }
}
