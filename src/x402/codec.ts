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
function decodeText(header: string, what: string): string {
  const bytes = Buffer.from(header, 'base64');
  // A header that is its bytes' own (padded) base64, as every client's encoder writes it, passes
  // every check below: told by encoding them again (native, ~1 µs for a 5.9 kB header) instead of
  // the regular expression's scan (4-5 µs in isolation, ~20 in the served profile). Any other
  // header is checked as before.
  if (bytes.toString('base64') !== header) {
    if (!BASE64.test(header)) throw new Error(`Invalid ${what} header`);
    let end = header.length;
    if (end % 4 === 0) {
      if (header.charCodeAt(end - 1) === EQUALS) end--;
      if (header.charCodeAt(end - 1) === EQUALS) end--;
    }
    const pad = header.indexOf('=');
    if (end % 4 === 1 || (pad !== -1 && pad < end)) throw new Error(`Invalid ${what} header`);
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', bom);
}

/**
 * The `extensions` a payment echoes, by their exact text. The official client echoes the prompt's
 * whole `extensions` back (the bazaar entry with its JSON schema and the sign-in-with-x challenge:
 * 3.5 of the 4.5 kB of JSON), the same text in every payment made from one item's prompt; parsing
 * it anew cost each paid request a cold `JSON.parse` and the ~15 kB of objects it built
 * (docs/benchmarks.md). A payment whose `extensions` text is one seen before gets the value parsed
 * then (frozen, shared); the rest of its JSON is parsed as always, and whether the whole text is
 * JSON is decided exactly as `JSON.parse` decides it (see `parsePayment`).
 */
const KEY = '"extensions"';
/** Entries are found by the first characters of their text (the bazaar entry names its item early). */
const PREFIX = 256;
const MAX_ECHOES = 64;
/** A payment whose echo is not known is learnt from one miss in LEARN_EVERY (a stringify each). */
const LEARN_EVERY = 16;
const echoes = new Map<string, { text: string; value: unknown }[]>();
let echoCount = 0;
let misses = 0;

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/**
 * Where the value of the payment's top-level `extensions` key starts, when the text allows the
 * known-echo path: no `\u` escape anywhere (so every key named `extensions` is spelt literally),
 * and `"extensions"` appears exactly once, directly followed by `:`. Otherwise -1.
 */
function echoStart(text: string): number {
  const at = text.indexOf(KEY);
  if (at === -1 || text.indexOf(KEY, at + 1) !== -1 || text.indexOf('\\u') !== -1) return -1;
  return text.charCodeAt(at + KEY.length) === 0x3a ? at + KEY.length + 1 : -1;
}

/**
 * `JSON.parse(text)`, sharing the parsed `extensions` of a known echo. A known echo's text is a
 * complete JSON value (it came from `JSON.stringify`) standing where a value is expected: the
 * prefix before it ends with a key and its colon (a quote inside a string is escaped, so the key's
 * closing quote is a real one, and a prefix that is not the start of some JSON fails below as it
 * fails whole). Replacing one complete value with another (`null`, which no following character
 * can extend into a longer token, as none can extend the object's closing brace) leaves the text
 * JSON exactly when it was. The key is the top-level one when the parse then has `extensions`
 * null: it is the only key of that name in the text.
 */
function parsePayment(text: string): unknown {
  const start = echoStart(text);
  if (start !== -1) {
    const known = echoes.get(text.slice(start, start + PREFIX));
    const echo = known?.find((e) => text.startsWith(e.text, start));
    if (echo) {
      const rest = JSON.parse(
        `${text.slice(0, start)}null${text.slice(start + echo.text.length)}`,
      ) as unknown;
      if (
        typeof rest === 'object' &&
        rest !== null &&
        !Array.isArray(rest) &&
        (rest as { extensions?: unknown }).extensions === null
      ) {
        (rest as { extensions: unknown }).extensions = echo.value;
        return rest;
      }
      return JSON.parse(text);
    }
  }
  const value = JSON.parse(text) as unknown;
  if (start !== -1 && ++misses >= LEARN_EVERY) {
    misses = 0;
    learn(text, start, value);
  }
  return value;
}

function learn(text: string, start: number, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const ext = (value as { extensions?: unknown }).extensions;
  if (typeof ext !== 'object' || ext === null) return;
  const echo = JSON.stringify(ext);
  if (!text.startsWith(echo, start)) return;
  if (echoCount >= MAX_ECHOES) {
    echoes.clear();
    echoCount = 0;
  }
  deepFreeze(ext);
  const key = echo.slice(0, PREFIX);
  const list = echoes.get(key);
  if (list) list.push({ text: echo, value: ext });
  else echoes.set(key, [{ text: echo, value: ext }]);
  echoCount++;
}

export function decodePaymentSignatureHeader(header: string): unknown {
  return parsePayment(decodeText(header, 'payment signature'));
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
