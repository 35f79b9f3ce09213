import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { MarketplaceError, readJson } from '../../src/client/errors.js';

/** The x402 MCP transport's `_meta` keys (x402 specs/transports-v2/mcp.md, tool-result binding). */
export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';

/**
 * One REST call to this marketplace, made in process by the hosted endpoint (src/http/routes/mcp.ts
 * answers it with the very routes, guard and payment processor a REST client reaches).
 */
export type MarketplaceFetch = typeof globalThis.fetch;

/** What a hosted tool needs: the marketplace's base URL and its in-process fetch. */
export interface HostedDeps {
  baseUrl: string;
  fetch: MarketplaceFetch;
}

/** The client's payment in `_meta["x402/payment"]`, if any (an object, as the transport sends it). */
export function paymentOf(meta: Record<string, unknown> | undefined): PaymentPayload | undefined {
  const p = meta?.[PAYMENT_META];
  return typeof p === 'object' && p !== null && !Array.isArray(p)
    ? (p as PaymentPayload)
    : undefined;
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

export type PaidAnswer<T> =
  | { kind: 'done'; body: T; receipt?: Record<string, unknown> }
  | { kind: 'payment_required'; result: CallToolResult };

/**
 * A paid or identity REST call on behalf of an MCP client: sent with the client's payment (as
 * `PAYMENT-SIGNATURE`, byte for byte what an HTTP client would send) or without; a 402 becomes the
 * transport's PaymentRequired (with the service's refusal as its `error` when a payment was
 * refused), a success carries the settlement receipt, any other answer throws `MarketplaceError`.
 * The REST route does everything else: the prompt, the binding of a signature to it, verification,
 * the one settlement per authorization nonce and the order, exactly as for a REST client.
 */
export async function paidCall<T>(
  deps: HostedDeps,
  path: string,
  init: { method: string; body?: unknown },
  payment: PaymentPayload | undefined,
  schema: import('zod').ZodType<T>,
  extensions?: Record<string, unknown>,
): Promise<PaidAnswer<T>> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (payment) headers['PAYMENT-SIGNATURE'] = encodePaymentSignatureHeader(payment);
  const res = await deps.fetch(`${deps.baseUrl}${path}`, {
    method: init.method,
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const prompt = res.headers.get('PAYMENT-REQUIRED');
  if (res.status === 402 && prompt) {
    const required = decodePaymentRequiredHeader(prompt);
    // the tool's own entries (its bazaar discovery as an MCP tool) replace the route's
    if (extensions) required.extensions = { ...required.extensions, ...extensions };
    const refusal = (await res.json().catch(() => undefined)) as
      { error?: string; message?: string; reason?: string } | undefined;
    if (payment && refusal?.error && refusal.error !== 'payment_required') {
      const why = [refusal.error, refusal.reason, refusal.message].filter(Boolean).join(': ');
      required.error = `The payment was refused and nothing was charged (${why}). Sign a new payment for one of these requirements.`;
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
