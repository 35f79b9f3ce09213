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
import { parse as parseDisposition } from 'content-disposition';
import type { LocalAccount } from 'viem';
import { CHAINS, chainOfNetwork, NETWORK_OF, type Chain } from '../wire/chains.js';
import { toMicro, toUsdc } from '../wire/money.js';
import {
  ChallengeResponseSchema,
  LinkWalletResponseSchema,
  RegisterResponseSchema,
  RotateKeyResponseSchema,
  type SiweAction,
} from '../wire/auth.js';
import { PublicItemSchema, PublicStatusSchema } from '../wire/items.js';
import type { z } from 'zod';
import {
  DeleteMessageSchema,
  DeleteResponseSchema,
  KeyedUploadResponseSchema,
  SellerItemsSchema,
  SellerItemStatusSchema,
  UploadResponseSchema,
  type ItemStatus,
  type SellerItems,
  type SellerItemStatus,
  type UploadMetadata,
  type UploadResponse,
} from '../wire/listings.js';
import {
  AcquireResponseSchema,
  BuyResponseSchema,
  DownloadLinkSchema,
  InvoiceSchema,
  type Invoice,
  OrderLinksSchema,
  type AcquireResponse,
  type OrderLinks,
} from '../wire/orders.js';
import {
  SalesChainsResponseSchema,
  UsernameResponseSchema,
  type SalesChainsResponse,
  type UsernameResponse,
} from '../wire/accounts.js';
import {
  InboxResponseSchema,
  ItemFeedbackCreatedSchema,
  PlatformFeedbackCreatedSchema,
  type InboxResponse,
  type ItemFeedbackCreated,
  type PlatformFeedbackCreated,
} from '../wire/feedback.js';
import {
  SellerPayoutsASchema,
  SellerPayoutsSchema,
  SellerStatsSchema,
  type SellerPayouts,
  type SellerPayoutsA,
  type SellerStats,
} from '../wire/payouts.js';
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
  /**
   * Revision A deployments: the agent's API key (from `register` or `rotateKey`). With it, account
   * routes send `X-API-KEY` instead of a zero-value signature, purchases go through the keyed
   * `POST /api/v1/buy`, and uploads pay no fee; the methods answer in the same shapes.
   */
  apiKey?: string;
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

/**
 * The account's username. `username_type` is Revision B's (`automatic` until changed once); a
 * Revision A account has none: its name is fixed when the account is created.
 */
export interface AccountUsername {
  username: string;
  username_type?: UsernameResponse['username_type'];
}

/** A client-side refusal: the operation does not exist in the marketplace's contract revision. */
function notInRevisionA(message: string): MarketplaceError {
  return new MarketplaceError(0, 'not_in_this_revision', {
    error: 'not_in_this_revision',
    message,
  });
}

export class MarketplaceClient {
  readonly address: string;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly payer: x402Client;
  private readonly http: x402HTTPClient;
  private preferredNetwork: string | undefined;

  private apiKey: string | undefined;
  /** Revision A: the username this account registered with, when this client knows it. */
  private accountUsername: string | undefined;

  constructor(private readonly opts: MarketplaceClientOptions) {
    this.apiKey = opts.apiKey;
    this.address = opts.account.address;
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.payer = new x402Client((_v, reqs) => this.select(reqs));
    this.payer.register('eip155:*', new ExactEvmScheme(opts.account));
    this.payer.setSpendControls({ maxAmountPerPayment: `$${opts.maxPaymentUsdc ?? 100}` });
    this.http = new x402HTTPClient(this.payer);
  }

  /**
   * Revision A: the key every account call sends from now on (after register or rotate-key), and
   * the account's username when known (Revision A has no route that reads it back).
   */
  setApiKey(key: string | undefined, username?: string): void {
    this.apiKey = key;
    if (username !== undefined) this.accountUsername = username;
  }

  /** Revision A: the username this client registered with or was told; undefined otherwise. */
  get knownUsername(): string | undefined {
    return this.accountUsername;
  }

  /** True when this client speaks Revision A (an API key is set). */
  get keyed(): boolean {
    return this.apiKey !== undefined;
  }

  private keyHeader(): Record<string, string> {
    return this.apiKey ? { 'x-api-key': this.apiKey } : {};
  }

  /** Revision A: a SIWE challenge for this wallet, signed unchanged with personal_sign. */
  async signedChallenge(
    action: SiweAction,
    chain: Chain = 'base',
  ): Promise<{ message: string; signature: string }> {
    const res = await this.fetchFn(`${this.opts.baseUrl}/api/v1/auth/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: this.address, chain, action }),
    });
    const { message } = await this.json(res, ChallengeResponseSchema);
    return { message, signature: await this.opts.account.signMessage({ message }) };
  }

  private async postJson<T>(path: string, body: unknown, schema: z.ZodType<T>, keyed = false) {
    const res = await this.fetchFn(`${this.opts.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(keyed ? this.keyHeader() : {}) },
      body: JSON.stringify(body),
    });
    return this.json(res, schema);
  }

  /**
   * Revision A registration with this wallet on `chains` (one signed challenge each); the key is
   * kept for the following calls and returned once.
   */
  async register(input: {
    username: string;
    country: string;
    chains?: Chain[];
  }): Promise<{ agent_id: string; api_key: string }> {
    const wallets = [];
    for (const chain of input.chains ?? ['base', 'polygon']) {
      wallets.push({
        chain,
        address: this.address,
        ...(await this.signedChallenge('register', chain)),
      });
    }
    const res = await this.postJson(
      '/api/v1/register',
      { username: input.username, country: input.country, terms_agreed: true, wallets },
      RegisterResponseSchema,
    );
    this.apiKey = res.api_key;
    this.accountUsername = input.username;
    return res;
  }

  /** Revision A: a new key for this wallet's account (the old one stops working); kept here too. */
  async rotateKey(chain: Chain = 'base'): Promise<{ api_key: string; agent_id: string }> {
    const res = await this.postJson(
      '/api/v1/auth/rotate-key',
      await this.signedChallenge('rotate-key', chain),
      RotateKeyResponseSchema,
    );
    this.apiKey = res.api_key;
    return res;
  }

  /** Revision A: links this client's wallet on `chain` to the account of the current key. */
  async linkWallet(chain: Chain): Promise<{ message: string }> {
    return this.postJson(
      '/api/v1/auth/link-wallet',
      await this.signedChallenge('link-wallet', chain),
      LinkWalletResponseSchema,
      true,
    );
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
    // Revision A: the key stands in for every identity signature (and names the buyer on /buy).
    const key = opts.pay !== 'none' && url.startsWith(this.opts.baseUrl) ? this.keyHeader() : {};
    const init = (extra: Record<string, string> = {}): RequestInit => ({
      method,
      headers: {
        ...(opts.body !== undefined && { 'content-type': 'application/json' }),
        ...key,
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
    if (this.apiKey) return this.buyWithKey(itemId, opts, limit);
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

  /**
   * Revision A purchase: `POST /api/v1/buy` with the key; the completion names the item and the
   * chain that was signed. Answers like `acquire`, with the keyed invoice route as `invoice_url`
   * (this client sends the key when it reads it).
   */
  private async buyWithKey(
    itemId: string,
    opts: { chain?: Chain; approve?: (required: PaymentRequired) => void | Promise<void> },
    limit: ((required: PaymentRequired) => void) | undefined,
  ): Promise<{ order: AcquireResult; settlement: SettleResponse | undefined }> {
    const url = `${this.opts.baseUrl}/api/v1/buy`;
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      this.fetchFn(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.keyHeader(), ...extra },
        body: JSON.stringify(body),
      });
    const first = await post({ item_id: itemId, ...(opts.chain && { chain: opts.chain }) });
    if (first.status !== 402) {
      await this.json(first);
      throw new MarketplaceError(first.status, 'unexpected_response', undefined);
    }
    const required = this.paymentRequiredOf(first, await first.json().catch(() => undefined));
    limit?.(required);
    await opts.approve?.(required);
    const { header, payload } = await this.signPayment(required, opts.chain);
    const chain = chainOfNetwork(payload.accepted.network);
    const res = await post(
      { item_id: itemId, chain, policy_accepted: true, license_accepted: true },
      { 'PAYMENT-SIGNATURE': header },
    );
    const receipt = res.headers.get('PAYMENT-RESPONSE');
    const bought = await this.json(res, BuyResponseSchema);
    return {
      order: { ...bought, invoice_url: this.keyedInvoiceUrl(bought.order_id) },
      settlement: receipt ? decodePaymentResponseHeader(receipt) : undefined,
    };
  }

  private keyedInvoiceUrl(orderId: string): string {
    return `${this.opts.baseUrl}/api/v1/orders/${orderId}/invoice`;
  }

  /** Fresh signed links for an own completed order (zero-value identity, or the key in Revision A). */
  async getOrder(orderId: string): Promise<OrderLinksResult> {
    if (this.apiKey) {
      const links = await this.json(
        await this.send('GET', `/api/v1/orders/${orderId}/download`, { pay: 'identity' }),
        DownloadLinkSchema,
      );
      return { ...links, invoice_url: this.keyedInvoiceUrl(orderId) };
    }
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
    if (this.apiKey) {
      // Revision A: no fee; the answer names the public status URL instead of a fee invoice.
      const res = await this.fetchFn(url, {
        method: 'POST',
        body: form(),
        headers: this.keyHeader(),
      });
      const listed = await this.json(res, KeyedUploadResponseSchema);
      return {
        listing: { item_id: listed.item_id, status: listed.status, invoice_url: listed.status_url },
        settlement: undefined,
      };
    }
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
    if (this.apiKey) {
      // Revision A's public status shows the scan states (404 once deleted).
      const { status, reason } = await this.json(
        await this.fetchFn(`${this.opts.baseUrl}/api/v1/items/${itemId}/status`),
        PublicStatusSchema,
      );
      return { status: status as ItemStatus, reason };
    }
    return this.json(
      await this.send('GET', `/api/v1/seller/items/${itemId}/status`, { pay: 'identity' }),
      SellerItemStatusSchema,
    );
  }

  /** Deletes an own listing (idempotent; 404 for a listing that is not the wallet's). */
  async deleteItem(itemId: string): Promise<{ ok: true }> {
    if (this.apiKey) {
      await this.json(
        await this.send('DELETE', `/api/v1/items/${itemId}`, { pay: 'identity' }),
        DeleteMessageSchema,
      );
      return { ok: true };
    }
    return this.json(
      await this.send('DELETE', `/api/v1/items/${itemId}`, { pay: 'identity' }),
      DeleteResponseSchema,
    );
  }

  /**
   * `{ username, username_type }` of the wallet's account (zero-value identity). Revision A has
   * no route for it: the name this client registered with, or else the `seller_username` of one
   * of the account's active listings; `username_unknown` when neither is at hand.
   */
  async getUsername(): Promise<AccountUsername> {
    if (!this.apiKey) return this.identity('GET', '/api/v1/agent/username', UsernameResponseSchema);
    if (this.accountUsername) return { username: this.accountUsername };
    const [active] = (await this.sellerItems({ status: 'active', limit: 1 })).items;
    if (active) {
      const item = await this.json(
        await this.fetchFn(`${this.opts.baseUrl}/api/v1/items/${active.item_id}`),
        PublicItemSchema,
      );
      const username = item.metadata.seller_username;
      if (username) return { username: (this.accountUsername = username) };
    }
    throw new MarketplaceError(0, 'username_unknown', {
      error: 'username_unknown',
      message:
        'Revision A has no route that reads an account’s username: it is fixed at registration and shown as seller_username on the account’s active listings, and this account has none',
    });
  }

  /**
   * Changes the username, once: permanent afterwards (409 username_already_changed). Revision A
   * fixes the name at registration: refused here (`not_in_this_revision`) without a request.
   */
  async setUsername(username: string): Promise<UsernameResponse> {
    if (this.apiKey) {
      throw notInRevisionA(
        'Revision A fixes the username when the account is registered; no route changes it',
      );
    }
    return this.identity('PUT', '/api/v1/agent/username', UsernameResponseSchema, { username });
  }

  /**
   * The chains the seller accepts sales on. Revision A: the chains where the account has a
   * linked wallet (payable chains follow linked wallets), read from its payouts.
   */
  async getSalesChains(): Promise<SalesChainsResponse> {
    if (!this.apiKey)
      return this.identity('GET', '/api/v1/agent/sales-chains', SalesChainsResponseSchema);
    const { payouts } = await this.identity('GET', '/api/v1/seller/payouts', SellerPayoutsASchema);
    return {
      sales_chains: CHAINS.filter((c) => payouts.some((p) => p.chain === c && p.seller_wallet)),
    };
  }

  /**
   * The chains the seller accepts sales on; omitted ones are opted out. Revision A: links this
   * client's wallet (SIWE link-wallet) on each requested chain that has no linked wallet yet;
   * Revision A cannot unlink, so a list that leaves out a linked chain is refused
   * (`not_in_this_revision`) before anything changes.
   */
  async setSalesChains(chains: Chain[]): Promise<SalesChainsResponse> {
    if (!this.apiKey) {
      return this.identity('PUT', '/api/v1/agent/sales-chains', SalesChainsResponseSchema, {
        sales_chains: chains,
      });
    }
    const { sales_chains: linked } = await this.getSalesChains();
    const dropped = linked.filter((c) => !chains.includes(c));
    if (dropped.length) {
      throw notInRevisionA(
        `Revision A cannot stop sales on a chain where the account has a linked wallet (${dropped.join(', ')}): it has no route to unlink one; nothing was changed`,
      );
    }
    for (const chain of CHAINS) {
      if (chains.includes(chain) && !linked.includes(chain)) await this.linkWallet(chain);
    }
    return this.getSalesChains();
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
    // Revision A serves the inbox under /feedback.
    const inbox = this.apiKey ? '/api/v1/feedback/inbox' : '/api/v1/inbox';
    return this.identity('GET', `${inbox}${q.size ? `?${q}` : ''}`, InboxResponseSchema);
  }

  /** Marks one inbox row read (idempotent; 404 when not the seller's). */
  async ackFeedback(feedbackId: string): Promise<void> {
    const path = this.apiKey
      ? `/api/v1/feedback/${feedbackId}/ack`
      : `/api/v1/inbox/${feedbackId}/ack`;
    const res = await this.send('POST', path, { pay: 'identity' });
    if (!res.ok) await this.json(res);
  }

  /** Feedback to the platform (any wallet; never creates an account). */
  async platformFeedback(body: {
    text: string;
    contact?: string;
  }): Promise<PlatformFeedbackCreated> {
    // Revision A takes only the text.
    const sent = this.apiKey ? { text: body.text } : body;
    return this.identity('POST', '/api/v1/feedback/platform', PlatformFeedbackCreatedSchema, sent);
  }

  /** Listing counts, revenue and recent sales of the wallet's account (spec 2.8). */
  async sellerStats(): Promise<SellerStats> {
    return this.identity('GET', '/api/v1/seller/stats', SellerStatsSchema);
  }

  /**
   * Pending payouts per chain and the payout history (spec 2.7). Revision A answers its own shape:
   * `{ payouts }` keyed by linked wallet, with its statuses and no history.
   */
  async sellerPayouts(): Promise<SellerPayouts | SellerPayoutsA> {
    return this.apiKey
      ? this.identity('GET', '/api/v1/seller/payouts', SellerPayoutsASchema)
      : this.identity('GET', '/api/v1/seller/payouts', SellerPayoutsSchema);
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
      await this.fetchFn(url, { headers: { accept: 'application/json', ...this.ownKey(url) } }),
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
      fileName: dispositionFileName(disposition),
      statedSha256: res.headers.get('x-content-sha256'),
    };
  }

  /** The key header for a URL of this marketplace (the keyed invoice route of Revision A). */
  private ownKey(url: string): Record<string, string> {
    return url.startsWith(`${this.opts.baseUrl}/`) ? this.keyHeader() : {};
  }

  async invoice(url: string, accept = 'application/json'): Promise<string> {
    const res = await this.fetchFn(url, { headers: { accept, ...this.ownKey(url) } });
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
    if (price > BigInt(toMicro(maxUsdc))) {
      throw new MarketplaceError(402, 'price_above_limit', {
        price_usdc: toUsdc(Number(price)),
        max_price_usdc: maxUsdc,
      });
    }
  };
}

/** The file name a `Content-Disposition` names (`filename*` first, as RFC 6266 says), if any. */
function dispositionFileName(header: string): string | undefined {
  if (!header) return undefined;
  try {
    return parseDisposition(header).parameters.filename || undefined;
  } catch {
    return undefined;
  }
}
