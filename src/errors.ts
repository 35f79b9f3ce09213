/**
 * The one error type of the service and the catalog of every error code it answers with.
 *
 * Domain code throws `new AppError(code, extras)`; the status and a default human message come
 * from the catalog, so a code can never be answered with two statuses and every body carries a
 * `message`. The HTTP error handler renders `{ error: code, message, ...extras }`, and MCP tools
 * key their hints by the same `ErrorCode` type. Nothing matches on message text.
 */
const catalog = <const T extends Record<string, readonly [status: number, message: string]>>(
  t: T,
) => t;

export const ERROR_CATALOG = catalog({
  // --- generic request problems -------------------------------------------------------------
  not_found: [404, 'Nothing is at this address.'],
  invalid_request: [400, 'The request is malformed.'],
  invalid_json: [400, 'The body is not valid JSON.'],
  invalid_multipart: [400, 'The multipart body is malformed or truncated.'],
  too_many_parts: [413, 'The multipart body has more parts or fields than an upload allows.'],
  unsupported_media_type: [415, 'This Content-Type is not accepted here.'],
  payload_too_large: [413, 'The body is larger than this route accepts.'],
  payment_header_too_large: [431, 'The PAYMENT-SIGNATURE header is too large.'],
  headers_too_large: [431, 'The request headers are too large.'],
  request_timeout: [408, 'The request did not arrive in time; the connection is closed.'],
  rate_limited: [429, 'Too many requests; retry after the time given.'],
  too_many_large_requests: [
    429,
    'Too many large requests from this address are in flight; wait for one to finish, then retry.',
  ],
  storage_unavailable: [
    503,
    'Archive storage is full or unavailable; nothing was stored or charged. Retry after the time given.',
  ],
  database_unavailable: [
    503,
    'The database is briefly out of reach (a restart or failover). Retry the same request after the time given; a signed payment is never charged twice.',
  ],
  internal_error: [500, 'Something went wrong on our side; nothing was charged twice. Try again.'],
  // --- discovery and search -----------------------------------------------------------------
  missing_query: [400, 'Send a search query in q.'],
  query_too_long: [400, 'q is limited to 1000 characters.'],
  invalid_query: [
    400,
    'Send q once, as text without control characters (tab and newlines are allowed).',
  ],
  invalid_tech_stack: [400, 'tech_stack must be a comma-separated list of plain words.'],
  tech_stack_too_long: [400, 'tech_stack is limited to 200 characters.'],
  invalid_price: [
    400,
    'Prices are plain decimal USDC amounts such as 2.5; search filters go from 0 to 1000000.',
  ],
  invalid_price_range: [400, 'min_price must not exceed max_price.'],
  invalid_item_id: [400, 'The item id must be a UUID.'],
  invalid_order_id: [400, 'The order id must be a UUID.'],
  invalid_feedback_id: [400, 'The feedback id must be a UUID.'],
  invalid_status: [400, 'Unknown item status.'],
  invalid_limit: [400, 'limit is out of range.'],
  invalid_offset: [400, 'offset must be a whole number of at least 0.'],
  invalid_since: [400, 'since must be an ISO-8601 date-time.'],
  invalid_until: [400, 'until must be an ISO-8601 date-time.'],
  invalid_peek: [400, 'peek must be true or false.'],
  invalid_include_read: [400, 'include_read must be true or false.'],
  item_not_found: [404, 'No active item with this id.'],
  preview_not_available: [
    404,
    'This listing has no preview (it could not be computed from its archive); the item itself is active.',
  ],
  attestation_not_found: [404, 'No signed scan report exists for this item id.'],
  invalid_license: [
    400,
    'license must be an SPDX id such as MIT or Apache-2.0 (at most 100 characters).',
  ],
  // --- payments (spec 7.1) ------------------------------------------------------------------
  payment_required: [
    402,
    'Payment required: sign one of the accepts[] requirements and retry with PAYMENT-SIGNATURE.',
  ],
  payment_verification_failed: [
    402,
    'The payment authorization was rejected before anything settled; nothing was charged.',
  ],
  payment_settlement_failed: [
    402,
    'The facilitator reported this payment as failed and this authorization is spent. It can report failure after broadcasting the transfer: do not sign a new payment before decided_after (when given). After it, a fresh signature with the same payment-identifier id answers your order if the transfer was mined after all (the same signed request answers its order_id).',
  ],
  payment_settlement_pending: [
    409,
    'The payment may have been charged and its outcome is not known yet: do not pay again; the marketplace resolves it from the chain. Check the order later.',
  ],
  authorization_already_used: [
    409,
    'This payment authorization was already used for another request, whose payment stands; this request stored and charged nothing. Sign a fresh authorization for this one.',
  ],
  invalid_payment_identifier: [
    400,
    'extensions["payment-identifier"].info.id must be 16-128 characters of A-Z, a-z, 0-9, _ and -; nothing was charged.',
  ],
  payment_identifier_conflict: [
    409,
    'This payment identifier was already used by this wallet for another request; nothing was charged. Use a new id for a new request.',
  ],
  settlement_capacity: [
    503,
    'Settlement is busy; nothing was charged. Sign a fresh authorization and retry later.',
  ],
  // --- purchase -----------------------------------------------------------------------------
  region_unavailable: [
    403,
    'Buying and listing are not available in your region. This is final for this region; discovery stays open.',
  ],
  unsupported_currency: [400, 'Only USDC is accepted.'],
  unsupported_chain: [400, 'Unknown chain; use base or polygon.'],
  policy_acceptance_required: [400, 'Send policy_accepted: true with the signed request.'],
  license_acceptance_required: [400, 'Send license_accepted: true with the signed request.'],
  self_purchase_forbidden: [403, 'A wallet cannot buy its own listing.'],
  payer_not_linked: [
    403,
    "The paying wallet is not linked to this API key's account; nothing was charged.",
  ],
  seller_wallet_missing: [409, 'The seller accepts no sales on the requested chain right now.'],
  order_not_found: [404, 'No completed order with this id belongs to the caller.'],
  archive_unavailable: [
    404,
    'The order stands, but its archive is missing from storage; the operator is alerted. Retry later with a fresh link of the order; do not pay again.',
  ],
  range_not_satisfiable: [
    416,
    'The requested byte range starts past the end of the archive; Content-Range gives its size.',
  ],
  invalid_link: [403, 'The link signature does not match.'],
  link_expired: [403, 'This link has expired; fetch a fresh one from the order.'],
  // --- selling ------------------------------------------------------------------------------
  invalid_metadata: [400, 'The listing metadata is invalid.'],
  unknown_metadata_key: [400, 'The listing metadata has a key the marketplace does not accept.'],
  unknown_feedback_key: [400, 'The feedback has a key the marketplace does not accept.'],
  invalid_file_name: [400, 'The archive file name is invalid.'],
  missing_file: [400, 'The upload carries no archive.'],
  invalid_file: [400, 'The archive is not valid.'],
  unsupported_archive: [400, 'Only zip and tar.gz archives are accepted.'],
  duplicate_code: [409, 'This archive is already listed.'],
  code_previously_rejected: [
    403,
    'This archive was refused by the safety scan and can never be listed.',
  ],
  listing_limit_reached: [409, 'The seller has reached the listing cap; delete a listing first.'],
  // --- accounts (spec 2.4, 5.2) -------------------------------------------------------------
  agent_not_found: [
    404,
    'No account belongs to this wallet yet: an account is created by a first purchase or listing.',
  ],
  feature_disabled: [404, 'This feature is disabled in this deployment.'],
  invalid_username: [
    400,
    'A username has 6-32 letters, digits, _ or -, and starts and ends with a letter or digit.',
  ],
  username_taken: [409, 'That username is already taken.'],
  username_already_changed: [409, 'The username was already changed once; it cannot change again.'],
  invalid_sales_chains: [
    400,
    'sales_chains must be a non-empty list of distinct supported chains.',
  ],
  // --- feedback (spec 7.2) ------------------------------------------------------------------
  invalid_rating: [400, 'rating must be a whole number from 0 to 10.'],
  invalid_text: [400, 'text must be a string without control characters.'],
  text_too_long: [400, 'text is limited to 1000 characters.'],
  empty_feedback: [400, 'Send a rating, a text or both.'],
  empty_text: [400, 'text must not be empty.'],
  invalid_contact: [400, 'contact is one line of at most 120 characters.'],
  not_buyer: [403, 'Only a buyer with a completed order on this item can give feedback.'],
  feedback_already_submitted: [409, 'Feedback for this item was already submitted by this buyer.'],
  feedback_window_expired: [
    409,
    'The feedback window of the most recent order on this item has closed.',
  ],
  feedback_not_found: [404, 'No feedback with this id belongs to the caller.'],
  // --- Revision A (spec 4.2, 5.1) -----------------------------------------------------------
  unauthorized: [401, 'Send a valid API key in X-API-KEY.'],
  csrf_invalid: [
    403,
    'The form is stale or did not come from this console; reload the page and send it again.',
  ],
  cross_origin_refused: [
    403,
    'The console accepts changes only from its own pages (Origin or Sec-Fetch-Site named another site).',
  ],
  invalid_address: [400, 'address must be a 0x-prefixed 20-byte hex address.'],
  invalid_action: [400, 'action must be register, link-wallet or rotate-key.'],
  chain_required: [400, 'Send the chain you signed for (base or polygon) with the signed request.'],
  invalid_challenge: [400, 'The signed message is not a valid challenge of this deployment.'],
  challenge_expired: [400, 'The challenge has expired; request a new one.'],
  challenge_used: [400, 'The challenge was already used; request a new one.'],
  challenge_action_mismatch: [400, 'The challenge was issued for another action.'],
  invalid_signature: [400, 'The signature does not match the message and address.'],
  invalid_country: [400, 'country must be an ISO 3166-1 alpha-2 code.'],
  terms_not_agreed: [400, 'Registration requires terms_agreed: true.'],
  invalid_wallets: [400, 'wallets must list at least one signed challenge.'],
  wallet_already_registered: [
    409,
    'This wallet already belongs to an account: rotate its key, then link wallets.',
  ],
  wallet_already_linked: [409, 'This wallet is already linked to an account.'],
});

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(s: string): s is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, s);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code][0];
}

/** A zod error option whose issue message is this catalog code (read back by the error handler). */
export const code = (c: ErrorCode) => ({ error: c });

export interface AppErrorExtras {
  /** Overrides the catalog's message for this occurrence. */
  message?: string;
  reason?: string;
  retry_after?: number;
  transaction?: string;
  network?: string;
  /** Extra response headers (e.g. Retry-After). Never rendered into the body. */
  headers?: Record<string, string>;
  /** Extra fields for the body that the spec names for one code (kept explicit and small). */
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: AppErrorExtras;

  constructor(code: ErrorCode, extras: AppErrorExtras = {}) {
    super(extras.message ?? ERROR_CATALOG[code][1]);
    this.name = 'AppError';
    this.status = statusOf(code);
    this.code = code;
    this.extras = extras;
  }

  /** The JSON body the client sees. */
  toBody(): Record<string, unknown> {
    const { reason, retry_after, transaction, network, details } = this.extras;
    return {
      error: this.code,
      message: this.message,
      ...(reason !== undefined && { reason }),
      ...(retry_after !== undefined && { retry_after }),
      ...(transaction !== undefined && { transaction }),
      ...(network !== undefined && { network }),
      ...details,
    };
  }
}

/** Shorthands for the two most common cases; the status still comes from the catalog. */
export const notFound = (c: ErrorCode = 'not_found', message?: string) =>
  new AppError(c, message ? { message } : {});
export const badRequest = (c: ErrorCode, message?: string) =>
  new AppError(c, message ? { message } : {});
