import type { z } from 'zod';
import { ERROR_CATALOG, isErrorCode, statusOf, type ErrorCode } from '../errors.js';
import type { RouteAuth } from './route-meta.js';

/**
 * Which error codes a route can answer, for its OpenAPI responses: derived, never listed twice.
 * - the codes its request schemas (params, query, body) raise: read from the zod schemas' own
 *   error options (`code('invalid_item_id')`, src/errors.ts);
 * - the codes its credential brings (an x402 payment, an identity proof, an API key) and those of
 *   any request with a body;
 * - the domain codes the route names in `config.errors`.
 * Statuses come from the one catalog.
 */

/** Every request: the rate limit, an oversized header, a slow client, our own failure. */
const EVERY_ROUTE: ErrorCode[] = [
  'rate_limited',
  'headers_too_large',
  'request_timeout',
  'database_unavailable',
  'internal_error',
];
const WITH_BODY: ErrorCode[] = [
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
];
const BY_AUTH: Record<RouteAuth, ErrorCode[]> = {
  public: [],
  paid402: [
    'payment_required',
    'payment_verification_failed',
    'payment_settlement_failed',
    'payment_settlement_pending',
    'authorization_already_used',
    'invalid_payment_identifier',
    'payment_identifier_conflict',
    'settlement_capacity',
    'payment_header_too_large',
  ],
  id402: [
    'payment_required',
    'payment_verification_failed',
    'authorization_already_used',
    'payment_header_too_large',
    'agent_not_found',
  ],
  key: ['unauthorized'],
  // operator routes are hidden from OpenAPI (src/http/admin/)
  operator: ['unauthorized'],
};

/** Issues a zod error option is asked about: conditional options name a code per case. */
const PROBES: Array<Record<string, unknown>> = [
  {},
  { input: undefined, code: 'invalid_type' },
  { input: '', code: 'too_small' },
  { input: 'x', code: 'too_big' },
  { input: 'x', code: 'custom' },
  { input: 1, code: 'invalid_value' },
  { input: {}, code: 'unrecognized_keys', keys: ['x'] },
];

function codesOfError(fn: unknown, out: Set<ErrorCode>) {
  if (typeof fn !== 'function') return;
  for (const probe of PROBES) {
    try {
      const r = (fn as (i: unknown) => unknown)(probe);
      const c = typeof r === 'string' ? r : (r as { message?: unknown } | undefined)?.message;
      if (typeof c === 'string' && isErrorCode(c)) out.add(c);
    } catch {
      // an option that needs a real issue names no code we can read
    }
  }
}

/** The catalog codes a zod schema's error options name, anywhere inside it. */
export function schemaCodes(schema: unknown, out = new Set<ErrorCode>(), seen = new Set()) {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  if (!def || seen.has(def)) return out;
  seen.add(def);
  codesOfError(def.error, out);
  for (const [key, value] of Object.entries(def)) {
    if (key === 'error' || key === 'getter') continue;
    if (key === 'shape' && value && typeof value === 'object') {
      for (const field of Object.values(value)) schemaCodes(field, out, seen);
    } else if (Array.isArray(value)) {
      for (const v of value) schemaCodes(v, out, seen);
    } else if (value && typeof value === 'object') {
      schemaCodes(value, out, seen);
    }
  }
  return out;
}

export interface RouteErrorInput {
  auth: RouteAuth;
  /** A paid route (a price in its config): the paid x402 codes, whatever its credential. */
  paid: boolean;
  anyWallet?: boolean;
  errors?: ErrorCode[];
  /** The route's request schemas (zod), as registered. */
  request: Array<z.ZodType | undefined>;
  hasBody: boolean;
}

/** Every code the route can answer, by status, in catalog order. */
export function routeErrors(r: RouteErrorInput): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>([
    ...EVERY_ROUTE,
    ...BY_AUTH[r.auth].filter((c) => !(r.anyWallet && c === 'agent_not_found')),
    ...(r.paid ? BY_AUTH.paid402 : []),
    ...(r.hasBody ? WITH_BODY : []),
    ...(r.errors ?? []),
  ]);
  for (const s of r.request) if (s) schemaCodes(s, codes);
  if (r.request.some(Boolean)) codes.add('invalid_request');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** The domain codes a purchase answers (acquire, and Revision A's keyed `/buy`). */
export const PURCHASE_ERRORS: ErrorCode[] = [
  'item_not_found',
  'region_unavailable',
  'unsupported_currency',
  'unsupported_chain',
  'policy_acceptance_required',
  'license_acceptance_required',
  'self_purchase_forbidden',
  'seller_wallet_missing',
  'chain_required',
];

/** The domain codes an upload answers (the paid listing, and Revision A's keyed one). */
export const UPLOAD_ERRORS: ErrorCode[] = [
  'invalid_metadata',
  'unknown_metadata_key',
  'invalid_file_name',
  'missing_file',
  'invalid_file',
  'unsupported_archive',
  'invalid_multipart',
  'too_many_parts',
  'duplicate_code',
  'code_previously_rejected',
  'listing_limit_reached',
  'storage_unavailable',
];
