import type { PaymentRequired, SettleResponse } from '@x402/core/types';

/**
 * The x402 v2 header codec: base64 of UTF-8 JSON, exactly as `@x402/core/http` encodes and decodes
 * `PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE` and `PAYMENT-RESPONSE` (the unit tests compare both on
 * the same inputs), on Node's Buffer: that package goes through `btoa`/`atob` and a string or
 * array per byte, work every paid request would pay twice.
 */

/** What @x402/core accepts as a header before decoding it. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const EQUALS = 0x3d;

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * Decodes a header with the rules of `atob` (forgiving-base64), which Buffer does not enforce:
 * padding only on a length that is a multiple of 4, and never a length of 4k + 1 without it.
 * A leading byte-order mark is dropped, as TextDecoder drops it. Throws on anything else.
 */
function decodeJson(header: string, what: string): unknown {
  if (!BASE64.test(header)) throw new Error(`Invalid ${what} header`);
  let end = header.length;
  if (end % 4 === 0) {
    if (header.charCodeAt(end - 1) === EQUALS) end--;
    if (header.charCodeAt(end - 1) === EQUALS) end--;
  }
  const pad = header.indexOf('=');
  if (end % 4 === 1 || (pad !== -1 && pad < end)) throw new Error(`Invalid ${what} header`);
  const bytes = Buffer.from(header, 'base64');
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return JSON.parse(bytes.toString('utf8', bom));
}

export function decodePaymentSignatureHeader(header: string): unknown {
  return decodeJson(header, 'payment signature');
}

export function encodePaymentRequiredHeader(required: PaymentRequired): string {
  return encodeJson(required);
}

/** The buyer-facing receipt: a settlement without its `extensionResponses`. */
export function encodePaymentResponseHeader(settlement: SettleResponse): string {
  const { extensionResponses: _internal, ...buyerFacing } = settlement as SettleResponse & {
    extensionResponses?: unknown;
  };
  return encodeJson(buyerFacing);
}
