import { z } from 'zod';
import { code, type ErrorCode } from '../errors.js';

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
export const decimalParam = (error: ErrorCode) =>
  z.string({ error }).regex(DECIMAL, { error }).transform(Number);

/** A non-negative integer written in a query string, digits only. */
export const integerParam = (error: ErrorCode) =>
  z.string({ error }).regex(INTEGER, { error }).transform(Number);

/** `limit` and `offset` of a paged list route (the seller's listings, the buyer's orders). */
export const pageQuery = {
  limit: integerParam('invalid_limit')
    .pipe(z.number().min(1, code('invalid_limit')).max(100, code('invalid_limit')))
    .default(100)
    .describe('Page size, an integer 1..100 (default 100)'),
  offset: integerParam('invalid_offset')
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, code('invalid_offset')))
    .default(0)
    .describe('Rows to skip, an integer >= 0 (default 0)'),
};

/**
 * A JSON request body object: its own keys and no others, like the upload's body and metadata. A
 * key the contract does not name is refused (`unknownKey`: 400 `invalid_request` unless the
 * feature has its own code) instead of dropped: a misspelt `polcy_accepted` or `reveiw` would
 * otherwise vanish and the call succeed without it. Any other problem with the object itself (not
 * an object at all) is `typeError`. The error handler names the unknown keys in the message.
 */
export function bodyObject<T extends z.core.$ZodLooseShape>(
  shape: T,
  typeError: ErrorCode = 'invalid_request',
  unknownKey: ErrorCode = 'invalid_request',
) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKey : typeError),
  });
}
