import { z } from 'zod';

/**
 * The one money vocabulary: USDC has 6 decimals on every supported chain, so every amount inside
 * the service is an integer count of base units (micro-USDC, `Micro`), and JSON shows USDC numbers
 * (`prices.USDC`, `price_usdc`), fixed 6-decimal strings (invoices) or plain decimal strings
 * (payouts). Every conversion between the two is here.
 */
export const USDC_DECIMALS = 6;
const UNIT = 10 ** USDC_DECIMALS;

/** USDC base units (6 decimals), an integer: the only money value inside the service. */
export type Micro = number & { readonly __unit?: 'micro-usdc' };

/** A non-negative decimal as JSON or `String(number)` writes it: digits, optional fraction, exponent. */
const DECIMAL = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * A USDC amount (a JSON number, or a decimal string) as exact base units, or undefined when it is
 * not one: more than 6 decimals (`0.0000001`), negative, not finite, not a decimal, or past
 * `Number.MAX_SAFE_INTEGER` base units. Read from the decimal digits, never through a float
 * product, so `0.1` is 100000 and `2.0000001` is refused instead of rounded.
 */
export function exactMicro(usdc: number | string): Micro | undefined {
  if (typeof usdc === 'number' && !Number.isFinite(usdc)) return undefined;
  const text = typeof usdc === 'number' ? String(usdc) : usdc;
  if (text.length > 64) return undefined;
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const all = m[1]! + (m[2] ?? '');
  const digits = all.replace(/^0+/, '');
  // digits of the base-unit integer part: the decimal point's place, moved 6 to the right
  const whole = m[1]!.length - (all.length - digits.length) + Number(m[3] ?? 0) + USDC_DECIMALS;
  if (digits === '') return 0;
  if (whole > 16) return undefined;
  const cut = Math.max(whole, 0);
  if (/[1-9]/.test(digits.slice(cut))) return undefined;
  const units = Number(digits.slice(0, cut).padEnd(cut, '0') || '0');
  return Number.isSafeInteger(units) ? units : undefined;
}

/**
 * A USDC number as base units, rounded to the nearest unit: for bounds and limits the service or
 * its operator chose (configured prices and fees, search filters, spending limits). A price a
 * client sends is read exactly (`exactMicro`, `UsdcPriceSchema`).
 */
export function toMicro(usdc: number): Micro {
  return Math.round(usdc * UNIT);
}

/** Base units as a USDC number (JSON `prices.USDC`, `price_usdc`). */
export function toUsdc(micro: Micro | bigint): number {
  return Number(micro) / UNIT;
}

/** Base units as an x402 `amount` (the token's base units as a decimal string: `"5000000"`). */
export function atomicAmount(micro: Micro): string {
  return String(micro);
}

/** An x402 `amount` this service issued (`atomicAmount`) back as base units. */
export function microOfAtomic(amount: string): Micro {
  return Number(amount);
}

/** Base units as a decimal string, fraction padded to 6 digits or (`trim`) without trailing zeros. */
function decimalUsdc(micro: Micro | bigint, trim: boolean): string {
  const units = BigInt(micro);
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString().padStart(USDC_DECIMALS + 1, '0');
  const whole = digits.slice(0, -USDC_DECIMALS);
  const fraction = digits.slice(-USDC_DECIMALS);
  const shown = trim ? fraction.replace(/0+$/, '') : fraction;
  return `${sign}${whole}${shown ? `.${shown}` : ''}`;
}

/** Base units as a fixed 6-decimal USDC string, e.g. `"5.000000"` (invoices). */
export function fixedUsdc(micro: Micro | bigint): string {
  return decimalUsdc(micro, false);
}

/** Base units as the shortest exact USDC string, e.g. `"5"`, `"0.25"` (payout balances). */
export function formatUsdc(micro: Micro | bigint): string {
  return decimalUsdc(micro, true);
}

/**
 * `prices.USDC` as a client sends it (a JSON number, at most 6 decimals) → `Micro`: the one
 * conversion of a price on its way in. The deployment's range is judged on the result, in Micro.
 */
export const UsdcPriceSchema = z
  .number({
    error: (issue) =>
      issue.input === undefined
        ? 'only USDC is accepted: { "USDC": <number> }'
        : 'prices.USDC must be a number',
  })
  .transform((usdc, ctx): Micro => {
    const micro = exactMicro(usdc);
    if (micro !== undefined) return micro;
    ctx.addIssue({
      code: 'custom',
      input: usdc,
      message:
        usdc < 0
          ? 'prices.USDC must not be negative'
          : usdc * UNIT > Number.MAX_SAFE_INTEGER
            ? 'prices.USDC is too large'
            : 'prices.USDC has at most 6 decimals',
    });
    return z.NEVER;
  });
