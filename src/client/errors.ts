import type { z } from 'zod';

/**
 * The client's error type and response parsing, kept apart from the signing client so that
 * callers that only read the catalogue (and the MCP server before its first paid call) load
 * neither viem nor x402.
 */
/** Refusals the client makes itself, beside the service's catalog codes (src/errors.ts). */
export type ClientErrorCode =
  | 'price_above_limit'
  | 'unexpected_charge'
  | 'unexpected_response'
  | 'http_error'
  /** The operation does not exist in the marketplace's contract revision (no request made). */
  | 'not_in_this_revision'
  /** Revision A: no route reads the account's username and the client does not know it. */
  | 'username_unknown';

export class MarketplaceError extends Error {
  constructor(
    /** The HTTP status, or 0 for a refusal the client made without a request. */
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}`);
    this.name = 'MarketplaceError';
  }
}

/**
 * Parses a JSON response; a non-2xx answer becomes a `MarketplaceError` carrying the spec's code.
 * With a wire schema the body is checked against it (`unexpected_response` when it does not fit).
 */
export async function readJson<T>(res: Response, schema?: z.ZodType<T>): Promise<T> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  if (!res.ok) {
    const code =
      typeof body === 'object' && body && 'error' in body
        ? String((body as { error: unknown }).error)
        : 'http_error';
    throw new MarketplaceError(res.status, code, body);
  }
  if (!schema) return body as T;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new MarketplaceError(res.status, 'unexpected_response', parsed.error.issues);
  }
  return parsed.data;
}
