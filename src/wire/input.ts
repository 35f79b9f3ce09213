import { z } from 'zod';
import type { ErrorCode } from '../errors.js';

/**
 * Rules for caller-supplied text and numbers, shared by every feature's wire schemas. Postgres
 * refuses a NUL byte in text (the statement fails), so text is checked here, before any SQL.
 */

/** C0 control characters and DEL, except tab, line feed and carriage return (plain whitespace). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** True when `s` holds a NUL byte or another control character that is not whitespace. */
export function hasControlCharacters(s: string): boolean {
  return CONTROL.test(s);
}

/** A plain decimal: digits with an optional fraction; no sign, spaces, exponent, hex or binary. */
const DECIMAL = /^\d+(\.\d+)?$/;
const INTEGER = /^\d+$/;

/**
 * A non-negative decimal written in a query string. `Number()` (and `z.coerce`) would read `""`
 * as 0, `0x10` as 16, `0b11` as 3 and `" 5 "` as 5; this accepts only `DECIMAL`.
 */
export const decimalParam = (code: ErrorCode) =>
  z.string({ error: code }).regex(DECIMAL, { error: code }).transform(Number);

/** A non-negative integer written in a query string, digits only. */
export const integerParam = (code: ErrorCode) =>
  z.string({ error: code }).regex(INTEGER, { error: code }).transform(Number);
