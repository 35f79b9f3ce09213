import { createHash } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { LocalAccount } from 'viem';
import { microToUsdc, NETWORK_OF, usdcToMicro, type Chain } from '../domain/chains.js';
import type { z } from 'zod';
import {
  PublicItemSchema,
  SearchResultsSchema,
  type PublicItem,
  type SearchResult,
} from '../domain/items/schemas.js';
import {
  AcquireResponseSchema,
  OrderLinksSchema,
  type AcquireResponse,
  type OrderLinks,
} from '../domain/orders/schemas.js';

/**
 * Typed REST client of the marketplace that performs the x402 v2 handshakes with a viem account:
 * paid (acquire) and zero-value identity (account routes). Signing is @x402/core's `x402Client`
 * with @x402/evm's exact scheme, so it pays exactly like the official clients. Used by the MCP
 * server, the tests and the benchmarks.
 */
export interface MarketplaceClientOptions {
  baseUrl: string;
  account: LocalAccount;
  fetch?: typeof globalThis.fetch;
  /** Refuse to sign a payment above this many USDC (default 100, the listing price cap). */
  maxPaymentUsdc?: number;
}

/** Refusals the client makes itself, beside the service's catalog codes (src/errors.ts). */
export type ClientErrorCode =
  'price_above_limit' | 'unexpected_charge' | 'unexpected_response' | 'http_error';

export class MarketplaceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}`);
    this.name = 'MarketplaceError';
  }
}

export type AcquireResult = AcquireResponse;
export type OrderLinksResult = OrderLinks;

export interface Download {
  bytes: Buffer;
  sha256: string;
  contentType: string;
  fileName: string | undefined;
  /** The SHA-256 the server states for the archive. */
  statedSha256: string | null;
}

export type PayMode = 'none' | 'identity' | 'paid';

export class MarketplaceClient {
  readonly address: string;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly payer: x402Client;
  private readonly http: x402HTTPClient;
  private preferredNetwork: string | undefined;

  constructor(private readonly opts: MarketplaceClientOptions) {
    this.address = opts.account.address;
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.payer = new x402Client((_v, reqs) => this.select(reqs));
    this.payer.register('eip155:*', new ExactEvmScheme(opts.account));
    this.payer.setSpendControls({ maxAmountPerPayment: `$${opts.maxPaymentUsdc ?? 100}` });
    this.http = new x402HTTPClient(this.payer);
  }

  private select(reqs: PaymentRequirements[]): PaymentRequirements {
    return reqs.find((r) => r.network === this.preferredNetwork) ?? reqs[0]!;
  }

  /** Parses the 402 prompt of a response (header first, as the official client does). */
  paymentRequiredOf(res: Response, body: unknown): PaymentRequired {
    return this.http.getPaymentRequiredResponse((n) => res.headers.get(n), body);
  }

  /** Signs a payment for a prompt; returns the `PAYMENT-SIGNATURE` header value. */
  async signPayment(
    required: PaymentRequired,
    chain?: Chain,
  ): Promise<{ header: string; payload: PaymentPayload }> {
    this.preferredNetwork = chain ? NETWORK_OF[chain] : undefined;
    const payload = await this.payer.createPaymentPayload(required);
    return {
      header: this.http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!,
      payload,
    };
  }

  /**
   * One call with the x402 handshake: the request as given; on 402, sign the prompt (identity
   * prompts must ask for exactly 0) and repeat it with `PAYMENT-SIGNATURE`.
   */
  async send(
    method: string,
    path: string,
    opts: {
      body?: unknown;
      pay?: PayMode;
      chain?: Chain;
      headers?: Record<string, string>;
      /** Called with the prompt before anything is signed; throw to refuse the payment. */
      approve?: (required: PaymentRequired) => void;
    } = {},
  ): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.opts.baseUrl}${path}`;
    const init = (extra: Record<string, string> = {}): RequestInit => ({
      method,
      headers: {
        ...(opts.body !== undefined && { 'content-type': 'application/json' }),
        ...opts.headers,
        ...extra,
      },
      ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
    });
    const first = await this.fetchFn(url, init());
    if (first.status !== 402 || !opts.pay || opts.pay === 'none') return first;
    const body: unknown = await first.json().catch(() => undefined);
    const required = this.paymentRequiredOf(first, body);
    if (opts.pay === 'identity' && required.accepts.some((a) => a.amount !== '0')) {
      throw new MarketplaceError(402, 'unexpected_charge', required);
    }
    opts.approve?.(required);
    const { header } = await this.signPayment(required, opts.chain);
    return this.fetchFn(url, init({ 'PAYMENT-SIGNATURE': header }));
  }

  private json<T>(res: Response, schema?: z.ZodType<T>): Promise<T> {
    return readJson<T>(res, schema);
  }

  /**
   * Buys an item: prompt, sign, complete with both legal flags. With `maxPriceUsdc`, a prompt that
   * asks for more is refused before anything is signed (`price_above_limit`, body
   * `{ price_usdc, max_price_usdc }`).
   */
  async acquire(
    itemId: string,
    opts: { chain?: Chain; maxPriceUsdc?: number } = {},
  ): Promise<{ order: AcquireResult; settlement: SettleResponse | undefined }> {
    const res = await this.send('POST', `/api/v1/items/${itemId}/acquire`, {
      body: {
        ...(opts.chain && { chain: opts.chain }),
        policy_accepted: true,
        license_accepted: true,
      },
      pay: 'paid',
      ...(opts.chain && { chain: opts.chain }),
      ...(opts.maxPriceUsdc !== undefined && { approve: priceLimit(opts.maxPriceUsdc) }),
    });
    const header = res.headers.get('PAYMENT-RESPONSE');
    const order = await this.json(res, AcquireResponseSchema);
    return { order, settlement: header ? decodePaymentResponseHeader(header) : undefined };
  }

  /** Fresh signed links for an own completed order (zero-value identity). */
  async getOrder(orderId: string): Promise<OrderLinksResult> {
    return this.json(
      await this.send('GET', `/api/v1/orders/${orderId}`, { pay: 'identity' }),
      OrderLinksSchema,
    );
  }

  /** Any identity-scoped JSON route. */
  async identityCall<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.json(
      await this.send(method, path, { pay: 'identity', ...(body !== undefined && { body }) }),
    );
  }

  async download(url: string): Promise<Download> {
    const res = await this.fetchFn(url);
    if (!res.ok) await this.json(res);
    const bytes = Buffer.from(await res.arrayBuffer());
    const disposition = res.headers.get('content-disposition') ?? '';
    return {
      bytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: res.headers.get('content-type') ?? '',
      fileName: /filename="([^"]+)"/.exec(disposition)?.[1],
      statedSha256: res.headers.get('x-content-sha256'),
    };
  }

  async invoice(url: string, accept = 'application/json'): Promise<string> {
    const res = await this.fetchFn(url, { headers: { accept } });
    if (!res.ok) await this.json(res);
    return res.text();
  }
}

/** Refuses a prompt whose any accepted requirement asks for more than `maxUsdc` (USDC base units). */
function priceLimit(maxUsdc: number): (required: PaymentRequired) => void {
  return (required) => {
    const price = required.accepts.reduce(
      (m, a) => (BigInt(a.amount) > m ? BigInt(a.amount) : m),
      0n,
    );
    if (price > BigInt(usdcToMicro(maxUsdc))) {
      throw new MarketplaceError(402, 'price_above_limit', {
        price_usdc: microToUsdc(Number(price)),
        max_price_usdc: maxUsdc,
      });
    }
  };
}

/**
 * Parses a JSON response; a non-2xx answer becomes a `MarketplaceError` carrying the spec's code.
 * With a wire schema the body is checked against it (`unexpected_response` when it does not fit).
 */
async function readJson<T>(res: Response, schema?: z.ZodType<T>): Promise<T> {
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

/** Search parameters of `GET /api/v1/search` (spec 4.1). */
export interface SearchParams {
  q: string;
  tech_stack?: string;
  min_price?: number;
  max_price?: number;
}

/** The public catalogue routes: no wallet, no payment. */
export class CatalogClient {
  private readonly fetchFn: typeof globalThis.fetch;

  constructor(private readonly opts: { baseUrl: string; fetch?: typeof globalThis.fetch }) {
    this.fetchFn = opts.fetch ?? globalThis.fetch;
  }

  /** At most 20 ranked active listings. */
  async search(params: SearchParams): Promise<SearchResult[]> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params))
      if (v !== undefined) query.set(k, typeof v === 'number' ? plainDecimal(v) : v);
    return readJson(
      await this.fetchFn(`${this.opts.baseUrl}/api/v1/search?${query}`),
      SearchResultsSchema,
    );
  }

  /** Detail of an active listing; 404 `item_not_found` otherwise. */
  async getItem(itemId: string): Promise<PublicItem> {
    return readJson(
      await this.fetchFn(`${this.opts.baseUrl}/api/v1/items/${encodeURIComponent(itemId)}`),
      PublicItemSchema,
    );
  }
}

/**
 * A price as the search route reads it: a plain decimal with at most 6 decimals (USDC's precision).
 * `String(n)` would write 1e-7 or 1e21, which the route refuses.
 */
function plainDecimal(n: number): string {
  return n.toFixed(6).replace(/\.?0+$/, '');
}
