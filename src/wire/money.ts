/**
 * The one money vocabulary: USDC has 6 decimals on every supported chain, so every amount inside
 * the service is an integer count of base units (micro-USDC), and JSON shows USDC numbers
 * (`prices.USDC`, `price_usdc`) or fixed 6-decimal strings (invoices). Every conversion is here.
 */
export const USDC_DECIMALS = 6;
const UNIT = 10 ** USDC_DECIMALS;

/** USDC base units (6 decimals), an integer: the only money value inside the service. */
export type Micro = number & { readonly __unit?: 'micro-usdc' };

/** A USDC amount as base units (rounded to the nearest unit; see `hasAtMostUsdcDecimals`). */
export function toMicro(usdc: number): Micro {
  return Math.round(usdc * UNIT);
}

/** True when a USDC number has no more than 6 decimals (a price a token can carry exactly). */
export function hasAtMostUsdcDecimals(usdc: number): boolean {
  return Math.abs(toMicro(usdc) - usdc * UNIT) <= 1e-6;
}

/** Base units as a USDC number (JSON `prices.USDC`, `price_usdc`). */
export function toUsdc(micro: number | bigint): number {
  return Number(micro) / UNIT;
}

/** Base units as a fixed 6-decimal USDC string, e.g. `"5.000000"` (invoices). */
export function fixedUsdc(micro: number): string {
  return toUsdc(micro).toFixed(USDC_DECIMALS);
}
