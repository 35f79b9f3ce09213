import { getAddress } from 'viem';
import type { Db } from '../../db/index.js';
import type { PaymentNetworks } from '../../x402/networks.js';
import type { Agent } from '../accounts/accounts.js';
import type { Chain } from '../../wire/chains.js';
import { sellerPayouts } from './payouts.js';
import type { PayoutRail } from './rail.js';
import type { PayoutEntryA, SellerPayoutsA } from '../../wire/payouts.js';

/**
 * `GET /api/v1/seller/payouts` in Revision A (spec 2.7): the same contract reads as Revision B
 * (`sellerPayouts`), keyed by the wallet the seller linked on each chain, with Revision A's
 * statuses: `wallet_missing` (no wallet linked there: buyers cannot pay the seller on that chain),
 * `contract_missing` (no payout contract yet), `token_missing`, `rpc_error`, `ok`. Read-only.
 */
export async function sellerPayoutsRevisionA(
  deps: { sql: Db; payoutRail: PayoutRail; networks: PaymentNetworks },
  agent: Agent,
): Promise<SellerPayoutsA> {
  const [read, linked] = await Promise.all([
    sellerPayouts(deps, agent),
    deps.sql<{ chain: Chain; address: string }[]>`
      select chain, address from linked_wallets where agent_id = ${agent.id}
      order by created_at, address`,
  ]);
  return {
    payouts: read.payouts.map((p): PayoutEntryA => {
      const wallet = linked.find((l) => l.chain === p.chain)?.address;
      const status: PayoutEntryA['status'] = !wallet
        ? 'wallet_missing'
        : p.status === 'payout_address_missing'
          ? 'contract_missing'
          : p.status;
      return {
        chain: p.chain,
        settlement_network: p.settlement_network,
        seller_wallet: wallet ? getAddress(wallet) : null,
        currency: 'USDC',
        token_address: p.token_address,
        payout_address: p.payout_address,
        decimals: p.decimals,
        pending_gross_raw: p.pending_gross_raw,
        pending_raw: p.pending_raw,
        pending: p.pending,
        // what the live clients' payouts script reads: the seller's pending share, human-readable
        amount: p.pending,
        status,
      };
    }),
  };
}
