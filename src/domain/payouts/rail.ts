import { shareOf } from './allocation.js';
import type { Chain } from '../../wire/chains.js';

/**
 * Chain reads and writes of payouts, behind ONE interface (spec 1.9, 2.7): the embedded default
 * implements it over the built-in facilitator's dev ledger (dev-ledger-rail.ts); the on-chain mode
 * implements it over RPC against the payout contracts, and `src/runtime.ts` puts whichever applies
 * in `deps.payoutRail`.
 *
 * What every implementation must behave like (a payout contract):
 * - A sale's gross amount is paid to the seller's payout address on the sale's chain; its token
 *   balance is what is pending.
 * - `distribute` forwards the balance less `PAYOUT_DUST_RAW`: the seller receives
 *   floor(gross × seller_bps / 10000), the platform floor(gross × platform_bps / 10000), with the
 *   allocation fixed at the address's creation; the rounding remainder (0 or 1 unit) stays with the
 *   constant dust, so a payout address never keeps more than 2 raw units after a payout.
 * - It is safe to call at any time: nothing to forward is a no-op (`grossRaw` 0n, `txHash` '').
 */
export interface PayoutRail {
  /** Raw token balances of payout addresses on one chain, one batched read. Throws on RPC failure. */
  balances(chain: Chain, addresses: string[]): Promise<Map<string, bigint>>; // keys lower-case
  /** Forward one payout address's balance (seller floor share, platform floor share, dust stays). */
  distribute(
    chain: Chain,
    payoutAddress: string,
  ): Promise<{ txHash: string; grossRaw: bigint; sellerRaw: bigint; platformRaw: bigint }>;
}

/** `balances` may throw this when the chain's token is not configured or not deployed. */
export class PayoutTokenMissing extends Error {
  constructor(chain: Chain) {
    super(`no payout token on ${chain}`);
    this.name = 'PayoutTokenMissing';
  }
}

/** Raw units a payout address always keeps (the rounding remainder comes on top: at most 2). */
export const PAYOUT_DUST_RAW = 1n;

/** The contract's gross: the balance above the dust (what `distribute` splits). */
export function pendingGross(balanceRaw: bigint): bigint {
  return balanceRaw > PAYOUT_DUST_RAW ? balanceRaw - PAYOUT_DUST_RAW : 0n;
}

/**
 * What a payout now would pay out of a balance, computed as the payout contract does (its
 * `pending(token)` view): gross = the balance less the dust, the seller's and the platform's
 * floor shares of it. When both shares are 0 nothing can move: the contract keeps the whole
 * balance (the dust and a lone rounding unit, at most 2 raw units), so nothing is pending (spec
 * 2.7 `pending_gross_raw`: never an amount the seller cannot be paid).
 */
export function forwardable(
  balanceRaw: bigint,
  allocation: { sellerBps: number; platformBps: number },
): { grossRaw: bigint; sellerRaw: bigint; platformRaw: bigint } {
  const gross = pendingGross(balanceRaw);
  const sellerRaw = shareOf(gross, allocation.sellerBps);
  const platformRaw = shareOf(gross, allocation.platformBps);
  if (sellerRaw + platformRaw === 0n) return { grossRaw: 0n, sellerRaw: 0n, platformRaw: 0n };
  return { grossRaw: gross, sellerRaw, platformRaw };
}

/**
 * The payout contract's public entry point, as the `payout_now` recipe states it:
 * `distribute(address token, uint256 minGrossRaw, address sender)`. `token` (args[0]) must be
 * exactly the chain's USDC; `minGrossRaw` makes the call revert unless at least that much is
 * forwarded (the recipe says "0": forward whatever is pending); `sender` (args[2]) is the caller's
 * own address, recorded in the contract's event only. Recipients and allocation are immutable in
 * the contract, so a sender pays gas, gains nothing and cannot redirect funds.
 */
export const PAYOUT_METHOD = {
  name: 'distribute',
  signature: 'distribute(address,uint256,address)',
  senderPlaceholder: '<your_address>',
} as const;
