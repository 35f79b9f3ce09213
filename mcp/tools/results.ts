import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MarketplaceError, type ClientErrorCode } from '../../src/client/errors.js';
import type { ErrorCode } from '../../src/errors.js';
import type { ErrorDetails } from '../../src/wire/errors.js';

/** A successful result: the structured content, mirrored as JSON text for clients without structured output. */
export function success(structuredContent: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/** An expected failure: text that tells the model how to fix the call. */
export function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Hints per error code (the service's catalog codes and the client's own refusals): what the
 * model should do next.
 */
export type Hints = Partial<
  Record<ErrorCode | ClientErrorCode, string | ((body: ErrorBody) => string)>
>;

/** An error body as the service sends it (src/wire/errors.ts), or the client's own refusal. */
export type ErrorBody = ErrorDetails & {
  /** Client-side refusal `price_above_limit`: the asked price. */
  price_usdc?: number;
};

/** The body of a failed call, or `{}`. */
export function bodyOf(err: MarketplaceError): ErrorBody {
  return typeof err.body === 'object' && err.body !== null ? (err.body as ErrorBody) : {};
}

/** Answers after which a signed payment may still be charged (see mayStillSettle). */
const UNKNOWN_OUTCOME = new Set<string>([
  'payment_settlement_pending',
  'payment_settlement_failed',
]);

/**
 * After a signed payment failed: true when the answer proves nothing was charged (a refusal
 * before settlement, or a client-side refusal), so the reservation goes back to the budget.
 * A pending settlement, a settlement answered as failed (`mayStillSettle`), a 5xx or a lost
 * connection may have charged: they keep counting.
 */
export function nothingCharged(err: unknown): boolean {
  if (!(err instanceof MarketplaceError)) return false;
  if (UNKNOWN_OUTCOME.has(err.code)) return false;
  if (spentOn(err)) return false;
  return err.status < 500 || err.code === 'settlement_capacity';
}

/**
 * A signed payment the marketplace already took, naming what it paid for (402
 * `invalid_exact_evm_nonce_already_used` with the order or listing): it was charged, and its links
 * come from the order (`get_order`), never from paying again. The order or item id, else undefined.
 */
export function spentOn(err: unknown): string | undefined {
  if (!(err instanceof MarketplaceError) || err.code !== 'payment_verification_failed') return;
  const b = bodyOf(err);
  if (b.reason !== 'invalid_exact_evm_nonce_already_used') return;
  return b.order_id ?? b.item_id;
}

/**
 * The signed payment's outcome is not known yet: 409 `payment_settlement_pending`, or 402
 * `payment_settlement_failed`, which a remote facilitator can answer after it broadcast the
 * transfer (the marketplace says it may still be mined until `decided_after`). Either keeps the
 * payment pending, counted and kept to be re-sent, never released on this answer alone.
 */
export function mayStillSettle(err: unknown): err is MarketplaceError {
  return err instanceof MarketplaceError && UNKNOWN_OUTCOME.has(err.code);
}

/** Codes any route can answer (spec 7.1, 7.2); tool-specific hints take precedence. */
const COMMON_HINTS: Hints = {
  item_not_found: 'No active listing has this item_id. Find a current one with search_items.',
  invalid_request: 'The marketplace rejected the arguments; correct them and call again.',
  payment_verification_failed: (b) =>
    b.reason === 'invalid_exact_evm_nonce_already_used' && b.order_id
      ? `This signed payment was already used (reason: ${b.reason}): it paid for order_id ${b.order_id}, and nothing more was charged by this call. ` +
        `Do NOT pay again. Get the order's links with get_order { order_id: "${b.order_id}" }.`
      : `The payment was rejected before settlement and nothing was charged${b.reason ? ` (reason: ${b.reason})` : ''}. ` +
        'If the wallet lacks USDC on that chain, ask the operator to fund it or pick another chain; ' +
        'if the authorization was already used, an earlier attempt may have succeeded' +
        `${b.order_id ? ` (order_id ${b.order_id})` : ''}: check with get_order before paying again.`,
  authorization_already_used:
    'That signed payment was already used for another request; nothing was stored or charged by this call. Call again: the tool signs a fresh authorization.',
  settlement_capacity: (b) =>
    `The payment service is briefly unavailable; nothing was charged. Call again after ${b.retry_after ?? 'a few'} seconds.`,
  payment_settlement_pending: (b) =>
    `The payment may have been charged and its outcome is unknown (${b.transaction ? `transaction ${b.transaction}` : 'no transaction named yet'} on ${b.network ?? '?'}` +
    `${b.order_id ? `, order_id ${b.order_id}` : ''}). Do NOT pay again: a new attempt would pay twice. ` +
    `The marketplace reconciles it from the chain; check later with ${b.order_id ? `get_order { order_id: "${b.order_id}" }` : 'list_my_orders and get_order'}.`,
  payment_settlement_failed: (b) =>
    `The facilitator reported the payment as failed${b.reason ? ` (reason: ${b.reason})` : ''}. ` +
    `Do not pay again${b.decided_after ? ` before ${b.decided_after}` : ' at once'}: a facilitator can report failure after broadcasting the transfer, and if it is mined after all the marketplace creates the order (check list_my_orders then). If no order appears, report the reason to the operator.`,
  database_unavailable: (b) =>
    `The marketplace's database is briefly out of reach (a restart or failover); nothing is lost. Call again after ${b.retry_after ?? 5} seconds ` +
    'with the same arguments (and the same signed payment, if this call carried one: it is never charged twice).',
  storage_unavailable: (b) =>
    `The marketplace's archive storage is briefly unavailable. Call again after ${b.retry_after ?? 60} seconds with the same arguments ` +
    '(a signed payment is never charged twice).',
  region_unavailable: 'Purchases are not offered in this region. This is final; do not retry.',
  agent_not_found:
    'The configured wallet has never bought or sold here, so it owns no orders. Use the order_id returned by acquire_item with the same wallet.',
  internal_error: 'The marketplace failed unexpectedly. Try again later.',
};

/**
 * Renders a failed REST call. `MarketplaceError` carries the spec's code (never matched on
 * message text); anything else is a transport problem. Nothing here can hold the private key:
 * the client signs locally and only ever sends signatures.
 */
export function apiFailure(
  err: unknown,
  action: string,
  baseUrl: string,
  hints: Hints = {},
): CallToolResult {
  if (err instanceof MarketplaceError) {
    const body = bodyOf(err);
    const key = err.code as keyof Hints;
    const hint = hints[key] ?? COMMON_HINTS[key];
    const detail = typeof body.message === 'string' ? ` (${body.message})` : '';
    const advice = typeof hint === 'function' ? hint(body) : (hint ?? defaultAdvice(err.status));
    // status 0: the client refused before sending anything
    const what = err.status ? `HTTP ${err.status} ${err.code}` : err.code;
    return failure(`${action} failed: ${what}${detail}. ${advice}`);
  }
  if (err instanceof TypeError && err.cause !== undefined) {
    // fetch() rejects with a TypeError whose cause is the network error
    const code = (err.cause as { code?: unknown }).code;
    return failure(
      `${action} failed: the marketplace at ${baseUrl} is unreachable${typeof code === 'string' ? ` (${code})` : ''}. ` +
        'The operator should check that it runs and that MARKETPLACE_URL is right; try again later.',
    );
  }
  const text = err instanceof Error ? err.message : String(err);
  return failure(`${action} failed unexpectedly: ${text.slice(0, 300)}`);
}

function defaultAdvice(status: number): string {
  if (status >= 500) return 'The marketplace had a problem; try again later.';
  if (status === 404) return 'Nothing with this id is visible to you; check the id.';
  return 'Correct the arguments and call again.';
}
