import { getAddress } from 'viem';
import type { Db } from '../../db/index.js';
import type { PaymentNetworks } from '../../x402/networks.js';
import type { Agent } from '../accounts/accounts.js';
import { CHAINS, NETWORK_OF, type Chain } from '../../wire/chains.js';
import { formatUsdc, USDC_DECIMALS } from '../../wire/money.js';
import { TOTAL_BPS } from './allocation.js';
import { forwardable, PAYOUT_METHOD, PayoutTokenMissing, type PayoutRail } from './rail.js';
import type { PayoutEntry, PayoutNow, SellerPayouts } from '../../wire/payouts.js';

/** Entries of `payout_history` shown (spec 2.7: the last 50). */
export const PAYOUT_HISTORY_LIMIT = 50;

/** The `payout_now` recipe of one payout contract (spec 2.7). */
export function payoutNowRecipe(payoutAddress: string, tokenAddress: string): PayoutNow {
  return {
    contract: getAddress(payoutAddress),
    method: PAYOUT_METHOD.name,
    signature: PAYOUT_METHOD.signature,
    args: [getAddress(tokenAddress), '0', PAYOUT_METHOD.senderPlaceholder],
  };
}

/**
 * `GET /api/v1/seller/payouts` (spec 2.7): per chain, the payout address's pending balance read
 * through the rail (one batched read per chain) with the allocation fixed at its creation, and the
 * last 50 forwarded payouts. A failed read is `rpc_error` with zero amounts and the recipe; the
 * other chain still answers.
 */
export async function sellerPayouts(
  deps: { sql: Db; payoutRail: PayoutRail; networks: PaymentNetworks },
  agent: Agent,
): Promise<SellerPayouts> {
  const { sql, payoutRail, networks } = deps;
  const addresses = await sql<
    { chain: Chain; address: string; sellerBps: number; platformBps: number; deployed: boolean }[]
  >`
    select chain, address, seller_bps, platform_bps, deployed_at is not null as deployed
    from payout_addresses where agent_id = ${agent.id}`;
  const payouts = await Promise.all(
    CHAINS.map(async (chain): Promise<PayoutEntry> => {
      const token = networks[chain].asset;
      const row = addresses.find((a) => a.chain === chain);
      const base = {
        chain,
        settlement_network: NETWORK_OF[chain],
        currency: 'USDC' as const,
        payout_address: row ? getAddress(row.address) : null,
        token_address: token,
        decimals: USDC_DECIMALS,
        allocation: {
          seller: row?.sellerBps ?? 0,
          platform: row?.platformBps ?? 0,
          total: TOTAL_BPS as 10_000,
        },
        // A contract not deployed yet (chain rail) cannot be called: no recipe until it exists.
        payout_now: row?.deployed ? payoutNowRecipe(row.address, token) : null,
      };
      const zero = { pending_gross_raw: '0', pending_raw: '0', pending: '0' };
      if (!row?.deployed) return { ...base, ...zero, status: 'payout_address_missing' };
      let balance: bigint;
      try {
        const read = await payoutRail.balances(chain, [row.address]);
        balance = read.get(row.address.toLowerCase()) ?? 0n;
      } catch (e) {
        return {
          ...base,
          ...zero,
          status: e instanceof PayoutTokenMissing ? 'token_missing' : 'rpc_error',
        };
      }
      // what the contract would pay out now: its dust and a lone rounding unit are not pending
      const { grossRaw, sellerRaw } = forwardable(balance, row);
      return {
        ...base,
        pending_gross_raw: grossRaw.toString(),
        pending_raw: sellerRaw.toString(),
        pending: formatUsdc(sellerRaw),
        status: 'ok',
      };
    }),
  );
  const history = await sql<
    { chain: Chain; txHash: string; grossRaw: string; sellerRaw: string; paidAt: Date }[]
  >`
    select chain, tx_hash, gross_raw::text, seller_raw::text, paid_at from payouts
    where agent_id = ${agent.id} order by paid_at desc, id desc limit ${PAYOUT_HISTORY_LIMIT}`;
  return {
    payouts,
    payout_history: history.map((h) => ({
      chain: h.chain,
      currency: 'USDC',
      tx_hash: h.txHash,
      decimals: USDC_DECIMALS,
      paid_gross_raw: h.grossRaw,
      paid_raw: h.sellerRaw,
      paid: formatUsdc(BigInt(h.sellerRaw)),
      paid_at: h.paidAt.toISOString(),
    })),
  };
}
