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
  DeleteResponseSchema,
  SellerItemsSchema,
  SellerItemStatusSchema,
  UploadResponseSchema,
  type ItemStatus,
  type SellerItems,
  type SellerItemStatus,
  type UploadMetadata,
  type UploadResponse,
} from '../domain/listings/schemas.js';
import {
  AcquireResponseSchema,
  InvoiceSchema,
  type Invoice,
  OrderLinksSchema,
  type AcquireResponse,
  type OrderLinks,
} from '../domain/orders/schemas.js';
import {
  SalesChainsResponseSchema,
  UsernameResponseSchema,
  type SalesChainsResponse,
  type UsernameResponse,
} from '../domain/accounts/schemas.js';
import {
  InboxResponseSchema,
  ItemFeedbackCreatedSchema,
  PlatformFeedbackCreatedSchema,
  type InboxResponse,
  type ItemFeedbackCreated,
  type PlatformFeedbackCreated,
} from '../domain/feedback/schemas.js';
import {
  SellerPayoutsSchema,
  SellerStatsSchema,
  type SellerPayouts,
  type SellerStats,
} from '../domain/payouts/schemas.js';
import { MarketplaceError, readJson } from './errors.js';

export { CatalogClient, type SearchParams } from './catalog.js';
export { MarketplaceError, readJson, type ClientErrorCode } from './errors.js';

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
      /**
       * Called with the prompt before anything is signed (it may ask a human first); throw to
       * refuse the payment.
       */
      approve?: (required: PaymentRequired) => void | Promise<void>;
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
    await opts.approve?.(required);
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
    opts: {
      chain?: Chain;
      maxPriceUsdc?: number;
      /** Runs after the price check, before signing (spending limits, a human's confirmation). */
      approve?: (required: PaymentRequired) => void | Promise<void>;
    } = {},
  ): Promise<{ order: AcquireResult; settlement: SettleResponse | undefined }> {
    const limit = opts.maxPriceUsdc !== undefined ? priceLimit(opts.maxPriceUsdc) : undefined;
    const res = await this.send('POST', `/api/v1/items/${itemId}/acquire`, {
      body: {
        ...(opts.chain && { chain: opts.chain }),
        policy_accepted: true,
        license_accepted: true,
      },
      pay: 'paid',
      ...(opts.chain && { chain: opts.chain }),
      approve: async (required) => {
        limit?.(required);
        await opts.approve?.(required);
      },
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

  /**
   * Lists an archive: validation first (a malformed upload or a duplicate is refused before any
   * fee), then the listing fee through x402; `approve` sees the fee prompt before anything is signed.
   */
  async upload(
    bytes: Buffer,
    opts: {
      compression: 'zip' | 'tar.gz';
      metadata: UploadMetadata;
      fileName?: string;
      chain?: Chain;
      approve?: (required: PaymentRequired) => void | Promise<void>;
    },
  ): Promise<{ listing: UploadResponse; settlement: SettleResponse | undefined }> {
    const fileName =
      opts.fileName ?? (opts.compression === 'zip' ? 'archive.zip' : 'archive.tar.gz');
    const form = () => {
      const f = new FormData();
      f.set('metadata', JSON.stringify(opts.metadata));
      f.set('compression', opts.compression);
      f.set('file', new Blob([new Uint8Array(bytes)]), fileName);
      return f;
    };
    const url = `${this.opts.baseUrl}/api/v1/items`;
    const first = await this.fetchFn(url, { method: 'POST', body: form() });
    if (first.status !== 402) {
      await this.json(first);
      throw new MarketplaceError(first.status, 'unexpected_response', undefined);
    }
    const required = this.paymentRequiredOf(first, await first.json().catch(() => undefined));
    await opts.approve?.(required);
    const { header } = await this.signPayment(required, opts.chain);
    const res = await this.fetchFn(url, {
      method: 'POST',
      body: form(),
      headers: { 'PAYMENT-SIGNATURE': header },
    });
    const receipt = res.headers.get('PAYMENT-RESPONSE');
    const listing = await this.json(res, UploadResponseSchema);
    return { listing, settlement: receipt ? decodePaymentResponseHeader(receipt) : undefined };
  }

  /** The seller's own listings, every state (zero-value identity). */
  async sellerItems(
    query: { status?: ItemStatus; limit?: number; offset?: number } = {},
  ): Promise<SellerItems> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    const qs = q.size ? `?${q}` : '';
    return this.json(
      await this.send('GET', `/api/v1/seller/items${qs}`, { pay: 'identity' }),
      SellerItemsSchema,
    );
  }

  /** The owner's view of one listing, scan states included (zero-value identity). */
  async sellerItemStatus(itemId: string): Promise<SellerItemStatus> {
    return this.json(
      await this.send('GET', `/api/v1/seller/items/${itemId}/status`, { pay: 'identity' }),
      SellerItemStatusSchema,
    );
  }

  /** Deletes an own listing (idempotent; 404 for a listing that is not the wallet's). */
  async deleteItem(itemId: string): Promise<{ ok: true }> {
    return this.json(
      await this.send('DELETE', `/api/v1/items/${itemId}`, { pay: 'identity' }),
      DeleteResponseSchema,
    );
  }

  /** `{ username, username_type }` of the wallet's account (zero-value identity). */
  async getUsername(): Promise<UsernameResponse> {
    return this.identity('GET', '/api/v1/agent/username', UsernameResponseSchema);
  }

  /** Changes the username, once: permanent afterwards (409 username_already_changed). */
  async setUsername(username: string): Promise<UsernameResponse> {
    return this.identity('PUT', '/api/v1/agent/username', UsernameResponseSchema, { username });
  }

  async getSalesChains(): Promise<SalesChainsResponse> {
    return this.identity('GET', '/api/v1/agent/sales-chains', SalesChainsResponseSchema);
  }

  /** The chains the seller accepts sales on; omitted ones are opted out. */
  async setSalesChains(chains: Chain[]): Promise<SalesChainsResponse> {
    return this.identity('PUT', '/api/v1/agent/sales-chains', SalesChainsResponseSchema, {
      sales_chains: chains,
    });
  }

  /** Rates and/or reviews a bought item (one feedback per item and buyer). */
  async submitFeedback(
    itemId: string,
    body: { rating?: number; text?: string },
  ): Promise<ItemFeedbackCreated> {
    return this.identity(
      'POST',
      `/api/v1/items/${itemId}/feedback`,
      ItemFeedbackCreatedSchema,
      body,
    );
  }

  /** Approved feedback on the seller's items; without `peek` the returned rows become read. */
  async inbox(
    query: {
      peek?: boolean;
      include_read?: boolean;
      since?: string;
      until?: string;
      limit?: number;
    } = {},
  ): Promise<InboxResponse> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    return this.identity('GET', `/api/v1/inbox${q.size ? `?${q}` : ''}`, InboxResponseSchema);
  }

  /** Marks one inbox row read (idempotent; 404 when not the seller's). */
  async ackFeedback(feedbackId: string): Promise<void> {
    const res = await this.send('POST', `/api/v1/inbox/${feedbackId}/ack`, { pay: 'identity' });
    if (!res.ok) await this.json(res);
  }

  /** Feedback to the platform (any wallet; never creates an account). */
  async platformFeedback(body: {
    text: string;
    contact?: string;
  }): Promise<PlatformFeedbackCreated> {
    return this.identity('POST', '/api/v1/feedback/platform', PlatformFeedbackCreatedSchema, body);
  }

  /** Listing counts, revenue and recent sales of the wallet's account (spec 2.8). */
  async sellerStats(): Promise<SellerStats> {
    return this.identity('GET', '/api/v1/seller/stats', SellerStatsSchema);
  }

  /** Pending payouts per chain and the payout history (spec 2.7). */
  async sellerPayouts(): Promise<SellerPayouts> {
    return this.identity('GET', '/api/v1/seller/payouts', SellerPayoutsSchema);
  }

  private async identity<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
  ): Promise<T> {
    return this.json(
      await this.send(method, path, { pay: 'identity', ...(body !== undefined && { body }) }),
      schema,
    );
  }

  /** The JSON invoice behind a signed invoice link. */
  async invoiceJson(url: string): Promise<Invoice> {
    return this.json(
      await this.fetchFn(url, { headers: { accept: 'application/json' } }),
      InvoiceSchema,
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
