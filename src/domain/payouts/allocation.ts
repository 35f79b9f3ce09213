import type { Config } from '../../config.js';

/**
 * The split a payout contract enforces (spec 1.9, 2.7): seller and platform shares in basis points
 * out of 10000, fixed when the seller's payout address is created.
 */
export interface PayoutAllocation {
  sellerBps: number;
  platformBps: number;
}

export const TOTAL_BPS = 10_000;

/** The schema default of `payout_addresses` (migration 051) and of the config keys. */
export const DEFAULT_ALLOCATION: PayoutAllocation = { sellerBps: 9_500, platformBps: 500 };

export function allocationOf(
  config: Pick<Config, 'PAYOUT_SELLER_BPS' | 'PAYOUT_PLATFORM_BPS'>,
): PayoutAllocation {
  return { sellerBps: config.PAYOUT_SELLER_BPS, platformBps: config.PAYOUT_PLATFORM_BPS };
}

/** floor(amount × bps / 10000): what a contract pays a share, in raw token units. */
export function shareOf(amountRaw: bigint, bps: number): bigint {
  return (amountRaw * BigInt(bps)) / BigInt(TOTAL_BPS);
}
