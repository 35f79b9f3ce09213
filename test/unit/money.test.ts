import { describe, expect, it } from 'vitest';
import { parseMetadata } from '../../src/domain/listings/upload.js';
import {
  exactMicro,
  fixedUsdc,
  formatUsdc,
  toMicro,
  toUsdc,
  UsdcPriceSchema,
} from '../../src/wire/money.js';

const config = { MIN_PRICE_USDC: 0.000001, MAX_PRICE_USDC: 100 };
const listing = (USDC: unknown) => ({
  title: 'Rate limiter',
  description: 'A token bucket for Fastify',
  tech_stack: 'TypeScript',
  prices: { USDC },
});

/** The code and message the upload answers a price with, or its price in base units. */
function priceVerdict(USDC: unknown): string | number {
  try {
    return parseMetadata(listing(USDC), config).price;
  } catch (err) {
    const e = err as { code: string; message: string };
    return `${e.code}: ${e.message}`;
  }
}

describe('money: USDC amounts as exact base units', () => {
  it('reads the smallest unit and whole prices exactly', () => {
    expect(exactMicro(0.000001)).toBe(1);
    expect(exactMicro('0.000001')).toBe(1);
    expect(exactMicro(100)).toBe(100_000_000);
    expect(exactMicro(0)).toBe(0);
    expect(exactMicro('5.000000')).toBe(5_000_000);
    expect(exactMicro('1.50000000')).toBe(1_500_000);
    expect(exactMicro(2.5e-6)).toBeUndefined();
    expect(exactMicro(1.23e-4)).toBe(123);
  });

  it('refuses a seventh decimal instead of rounding it away', () => {
    expect(exactMicro(1e-7)).toBeUndefined();
    expect(exactMicro('0.0000001')).toBeUndefined();
    expect(exactMicro(2.0000001)).toBeUndefined();
    expect(exactMicro(0.0000015)).toBeUndefined();
  });

  it('adds 0.1 and 0.2 to exactly 0.3 (no binary-fraction drift)', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(exactMicro(0.1)! + exactMicro(0.2)!).toBe(exactMicro(0.3));
    expect(toMicro(0.1) + toMicro(0.2)).toBe(toMicro(0.3));
    expect(fixedUsdc(exactMicro(0.1)! + exactMicro(0.2)!)).toBe('0.300000');
  });

  it('refuses negative, non-finite, non-decimal and unsafe amounts', () => {
    expect(exactMicro(-5)).toBeUndefined();
    expect(exactMicro('-0.5')).toBeUndefined();
    expect(exactMicro(Number.NaN)).toBeUndefined();
    expect(exactMicro(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(exactMicro(1e21)).toBeUndefined();
    expect(exactMicro('1e999999')).toBeUndefined();
    expect(exactMicro('9007199254.740992')).toBeUndefined();
    expect(exactMicro('9007199254.740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const junk of ['', ' 5', '5 ', '0x10', '+5', 'NaN', '.5', '1,5', '5e']) {
      expect(exactMicro(junk)).toBeUndefined();
    }
  });

  it('shows base units as USDC numbers and strings without float artefacts', () => {
    expect(toUsdc(1)).toBe(0.000001);
    expect(toUsdc(300_000)).toBe(0.3);
    expect(toUsdc(100_000_000n)).toBe(100);
    expect(fixedUsdc(5_000_000)).toBe('5.000000');
    expect(fixedUsdc(1)).toBe('0.000001');
    expect(fixedUsdc(0n)).toBe('0.000000');
    expect(formatUsdc(2_500_000n)).toBe('2.5');
    expect(formatUsdc(5_000_000)).toBe('5');
    expect(formatUsdc(0n)).toBe('0');
    expect(formatUsdc(-1_500_000n)).toBe('-1.5');
    expect(formatUsdc(123_456_789_012_345_678n)).toBe('123456789012.345678');
  });

  it('the price schema yields base units once, and says why it refuses', () => {
    expect(UsdcPriceSchema.parse(2.5)).toBe(2_500_000);
    expect(UsdcPriceSchema.safeParse(1e-7).error?.issues[0]?.message).toBe(
      'prices.USDC has at most 6 decimals',
    );
    expect(UsdcPriceSchema.safeParse(-1).error?.issues[0]?.message).toBe(
      'prices.USDC must not be negative',
    );
    expect(UsdcPriceSchema.safeParse('5').error?.issues[0]?.message).toBe(
      'prices.USDC must be a number',
    );
  });
});

describe('upload prices: the one conversion, with the deployment range judged in base units', () => {
  it('accepts the smallest unit and the maximum, and lists them as base units', () => {
    expect(priceVerdict(0.000001)).toBe(1);
    expect(priceVerdict(100)).toBe(100_000_000);
    expect(priceVerdict(0.3)).toBe(300_000);
  });

  it('refuses a price past 6 decimals that a float tolerance used to round silently', () => {
    // both were listed at 5 and 0.3 USDC before: the seller never learnt the price was changed
    expect(priceVerdict(5.0000000000001)).toBe('invalid_price: prices.USDC has at most 6 decimals');
    expect(priceVerdict(0.1 + 0.2)).toBe('invalid_price: prices.USDC has at most 6 decimals');
  });

  it('refuses with invalid_price what a token cannot carry or the range excludes', () => {
    expect(priceVerdict(1e-7)).toBe('invalid_price: prices.USDC has at most 6 decimals');
    expect(priceVerdict(100.000001)).toBe(
      'invalid_price: prices.USDC must be between 0.000001 and 100',
    );
    expect(priceVerdict(1e21)).toBe('invalid_price: prices.USDC is too large');
    expect(priceVerdict(-1)).toBe('invalid_price: prices.USDC must not be negative');
    expect(priceVerdict(0)).toBe('invalid_price: prices.USDC must be between 0.000001 and 100');
    expect(priceVerdict(Number.NaN)).toBe('invalid_price: prices.USDC must be a number');
    expect(priceVerdict('5')).toBe('invalid_price: prices.USDC must be a number');
  });
});
