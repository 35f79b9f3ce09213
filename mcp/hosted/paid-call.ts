import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { encodeSIWxHeader, type SIWxPayload } from '@x402/extensions/sign-in-with-x';
import { z } from 'zod';
import { MarketplaceError, readJson } from '../../src/client/errors.js';
import { checkedAs } from '../tools/output-schemas.js';

/** The x402 MCP transport's `_meta` keys (x402 specs/transports-v2/mcp.md, tool-result binding). */
export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';
/**
 * A sign-in-with-x proof in `_meta`: the very value of the REST `SIGN-IN-WITH-X` header (base64
 * JSON of the signed CAIP-122 payload), or that payload as an object. Named after the extension
 * (`extensions["sign-in-with-x"]`) whose challenge it answers, as `x402/payment` answers `accepts`.
 */
export const SIWX_META = 'sign-in-with-x';

/**
 * One REST call to this marketplace, made in process by the hosted endpoint (src/http/routes/mcp.ts
 * answers it with the very routes, guard and payment processor a REST client reaches).
 */
export type MarketplaceFetch = typeof globalThis.fetch;

/** What a hosted tool needs: the marketplace's base URL, its in-process fetch and upload limit. */
export interface HostedDeps {
  baseUrl: string;
  fetch: MarketplaceFetch;
  /** The service's largest archive (MAX_ARCHIVE_BYTES): list_item refuses more before decoding. */
  maxArchiveBytes: number;
  /** The paid and identity tools this deployment serves (server.ts hostedMcpTools); absent: all. */
  offered?: readonly string[];
}

/** What the client sent in `_meta` to pay or to prove its wallet. */
export interface CallerProof {
  payment?: PaymentPayload | undefined;
  /** The SIGN-IN-WITH-X header value. */
  siwx?: string | undefined;
  /**
   * A proof sent in `_meta` in no shape it can take (the payment as a string, null, an array...):
   * what was wrong, said back in the PaymentRequired's `error` instead of a prompt that reads as if
   * nothing had been sent.
   */
  unusable?: string | undefined;
}

/** The client's payment in `_meta["x402/payment"]`, if any (an object, as the transport sends it). */
export function paymentOf(meta: Record<string, unknown> | undefined): PaymentPayload | undefined {
  const p = meta?.[PAYMENT_META];
  return typeof p === 'object' && p !== null && !Array.isArray(p)
    ? (p as PaymentPayload)
    : undefined;
}

/**
 * What an HTTP header value can hold (fetch refuses the rest: a line break, NUL, a character past
 * Latin-1). The header's value is base64, so a string with anything else is no proof: named back
 * as unusable instead of failing the in-process call that would carry it.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The client's sign-in-with-x proof in `_meta["sign-in-with-x"]`, as the header's value. */
export function siwxOf(meta: Record<string, unknown> | undefined): string | undefined {
  const v = meta?.[SIWX_META];
  if (typeof v === 'string') return v.length > 0 && HEADER_VALUE.test(v) ? v : undefined;
  if (typeof v === 'object' && v !== null && !Array.isArray(v))
    return encodeSIWxHeader(v as SIWxPayload);
  return undefined;
}

const shapeOf = (v: unknown) =>
  v === null
    ? 'null'
    : v === ''
      ? 'an empty string'
      : typeof v === 'string' && !HEADER_VALUE.test(v)
        ? 'a string no header can carry'
        : Array.isArray(v)
          ? 'an array'
          : `a ${typeof v}`;

/** Everything a client may send in `_meta` to pay or to prove its wallet. */
export function proofOf(meta: Record<string, unknown> | undefined): CallerProof {
  const payment = paymentOf(meta);
  const siwx = siwxOf(meta);
  const sent = (key: string) => meta !== undefined && Object.hasOwn(meta, key);
  const unusable = [
    sent(PAYMENT_META) && !payment
      ? `_meta["${PAYMENT_META}"] is ${shapeOf(meta![PAYMENT_META])}, not the PaymentPayload object (send the object itself, not the base64 PAYMENT-SIGNATURE header value)`
      : undefined,
    sent(SIWX_META) && !siwx
      ? `_meta["${SIWX_META}"] is ${shapeOf(meta![SIWX_META])}, not the SIGN-IN-WITH-X header value or the signed payload object`
      : undefined,
  ].filter((x) => x !== undefined);
  return { payment, siwx, unusable: unusable.length ? unusable.join('; ') : undefined };
}

/**
 * The transport's payment-required answer: `isError`, the PaymentRequired object as
 * `structuredContent` and the same object as JSON in `content[0].text`.
 */
export function paymentRequiredResult(required: PaymentRequired): CallToolResult {
  const structuredContent = required as unknown as Record<string, unknown>;
  return {
    isError: true,
    structuredContent,
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
  };
}

/** The x402 v2 PaymentRequired a prompt carries in `structuredContent` (what a client reads of it). */
const PromptSchema = z.looseObject({
  x402Version: z.literal(2),
  error: z.string().optional(),
  resource: z.looseObject({ url: z.string() }),
  accepts: z.array(
    z.looseObject({
      scheme: z.string(),
      network: z.string(),
      amount: z.string(),
      asset: z.string(),
      payTo: z.string(),
    }),
  ),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The output schema of a tool that may answer the transport's payment prompt: `result` or the
 * PaymentRequired. An SDK client that listed the tools checks every `structuredContent` against
 * the listed schema, error results included (the prompt is one), and throws -32602 on a mismatch;
 * the listed JSON Schema is therefore `anyOf: [result, PaymentRequired]` (zod merges a schema's
 * metadata into its JSON Schema), while the server still checks a success against `result`.
 */
export function orPaymentRequired(result: z.ZodObject): z.ZodObject {
  return checkedAs(result, z.union([result, PromptSchema]));
}

export type PaidAnswer<T> =
  | { kind: 'done'; body: T; receipt?: Record<string, unknown> }
  | { kind: 'payment_required'; result: CallToolResult };

/**
 * A paid or identity REST call on behalf of an MCP client: sent with the client's payment (as
 * `PAYMENT-SIGNATURE`, byte for byte what an HTTP client would send) and/or its sign-in-with-x
 * proof (as `SIGN-IN-WITH-X`), or without; a JSON body, or a multipart form built in memory
 * (`FormData`, sent as it is: the route reads the parts, nothing touches a disk); a 402 becomes the
 * transport's PaymentRequired (with the service's refusal as its `error` when a payment was
 * refused), a success carries the settlement receipt, any other answer throws `MarketplaceError`.
 * The REST route does everything else: the prompt, the binding of a signature to it, verification,
 * the one settlement per authorization nonce and the order, exactly as for a REST client.
 */
export async function paidCall<T>(
  deps: HostedDeps,
  path: string,
  init: { method: string; body?: unknown },
  proof: CallerProof,
  schema: import('zod').ZodType<T>,
  extensions?: Record<string, unknown>,
): Promise<PaidAnswer<T>> {
  const { payment, siwx } = proof;
  const form = init.body instanceof FormData ? init.body : undefined;
  const headers: Record<string, string> = {};
  // FormData sets its own multipart content type (with the boundary)
  if (init.body !== undefined && !form) headers['content-type'] = 'application/json';
  if (payment) headers['PAYMENT-SIGNATURE'] = encodePaymentSignatureHeader(payment);
  if (siwx) headers['SIGN-IN-WITH-X'] = siwx;
  const res = await deps.fetch(`${deps.baseUrl}${path}`, {
    method: init.method,
    headers,
    ...(init.body !== undefined && { body: form ?? JSON.stringify(init.body) }),
  });
  const prompt = res.headers.get('PAYMENT-REQUIRED');
  if (res.status === 402 && prompt) {
    const required = decodePaymentRequiredHeader(prompt);
    // the tool's own entries (its bazaar discovery as an MCP tool) replace the route's
    if (extensions) required.extensions = { ...required.extensions, ...extensions };
    const refusal = (await res.json().catch(() => undefined)) as
      { error?: string; message?: string; reason?: string } | undefined;
    if (proof.unusable) {
      required.error = `The proof in _meta was not used and nothing was charged: ${proof.unusable}. Sign one of these requirements and call again.`;
    } else if ((payment || siwx) && refusal?.error && refusal.error !== 'payment_required') {
      const why = [refusal.error, refusal.reason, refusal.message].filter(Boolean).join(': ');
      required.error = payment
        ? `The payment was refused and nothing was charged (${why}). Sign a new payment for one of these requirements.`
        : `The sign-in-with-x proof was refused and nothing was charged (${why}). Sign this prompt's fresh sign-in-with-x challenge, or a zero-value payment for one of its requirements.`;
    }
    return { kind: 'payment_required', result: paymentRequiredResult(required) };
  }
  const receiptHeader = res.headers.get('PAYMENT-RESPONSE');
  const body = await readJson(res, schema);
  if (!receiptHeader) return { kind: 'done', body };
  return {
    kind: 'done',
    body,
    receipt: decodePaymentResponseHeader(receiptHeader) as unknown as Record<string, unknown>,
  };
}

export { MarketplaceError };
