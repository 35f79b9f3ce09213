import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import type { LocalAccount } from 'viem';
import type { Chain } from '../wire/chains.js';
import type { SiweAction } from '../wire/auth.js';
import type { SalesChainsResponse, UsernameResponse } from '../wire/accounts.js';
import {
  InboxResponseSchema,
  ItemFeedbackCreatedSchema,
  type InboxResponse,
  type ItemFeedbackCreated,
  type PlatformFeedbackCreated,
} from '../wire/feedback.js';
import type { ItemStatus, SellerItems, SellerItemStatus } from '../wire/listings.js';
import type { AcquireResponse, Invoice, OrderLinks } from '../wire/orders.js';
import {
  SellerStatsSchema,
  type SellerPayouts,
  type SellerPayoutsA,
  type SellerStats,
} from '../wire/payouts.js';
import {
  Connection,
  type AccountUsername,
  type Approve,
  type OnSigned,
  type Bought,
  type Listed,
  type PayMode,
  type Transport,
} from './connection.js';
import { queryString, sellerItems, uploadForm, type UploadInput } from './listings.js';
import { download, invoice, invoiceJson, priceLimit, type Download } from './payments.js';
import { KeyedTransport, linkWallet, register, rotateKey } from './revision-a.js';
import { walletTransport } from './wallet-transport.js';

export { CatalogClient, type SearchParams } from './catalog.js';
export { MarketplaceError, readJson, type ClientErrorCode } from './errors.js';
export type { AccountUsername, Download, PayMode };

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

/**
 * The one choice of contract revision on the client side: an API key names the account
 * (Revision A, revision-a.ts), or the wallet's signatures do (Revision B, wallet-transport.ts).
 */
function transportOf(apiKey: string | undefined): Transport {
  return apiKey !== undefined ? new KeyedTransport(apiKey) : walletTransport;
}

export class MarketplaceClient {
  readonly address: string;
  private readonly c: Connection;

  constructor(opts: MarketplaceClientOptions) {
    this.c = new Connection(
      opts.baseUrl,
      opts.account,
      transportOf(opts.apiKey),
      opts.fetch,
      opts.maxPaymentUsdc ?? 100,
    );
    this.address = this.c.address;
  }

  /**
   * Revision A: the key every account call sends from now on (after register or rotate-key), and
   * the account's username when known (Revision A has no route that reads it back).
   */
  setApiKey(key: string | undefined, username?: string): void {
    this.c.transport = transportOf(key);
    if (username !== undefined) this.c.username = username;
  }

  /** Revision A: the username this client registered with or was told; undefined otherwise. */
  get knownUsername(): string | undefined {
    return this.c.username;
  }

  /** True when this client speaks Revision A (an API key is set). */
  get keyed(): boolean {
    return this.c.transport.keyed;
  }

  /** Revision A: a SIWE challenge for this wallet, signed unchanged with personal_sign. */
  signedChallenge(action: SiweAction, chain?: Chain) {
    return this.c.signedChallenge(action, chain);
  }

  /**
   * Revision A registration with this wallet on `chains` (one signed challenge each); the key is
   * kept for the following calls and returned once.
   */
  register(input: { username: string; country: string; chains?: Chain[] }) {
    return register(this.c, input);
  }

  /** Revision A: a new key for this wallet's account (the old one stops working); kept here too. */
  rotateKey(chain: Chain = 'base'): Promise<{ api_key: string; agent_id: string }> {
    return rotateKey(this.c, chain);
  }

  /** Revision A: links this client's wallet on `chain` to the account of the current key. */
  linkWallet(chain: Chain): Promise<{ message: string }> {
    return linkWallet(this.c, chain);
  }

  /** Parses the 402 prompt of a response (header first, as the official client does). */
  paymentRequiredOf(res: Response, body: unknown): PaymentRequired {
    return this.c.paymentRequiredOf(res, body);
  }

  /** Signs a payment for a prompt; returns the `PAYMENT-SIGNATURE` header value. */
  signPayment(
    required: PaymentRequired,
    chain?: Chain,
  ): Promise<{ header: string; payload: PaymentPayload }> {
    return this.c.signPayment(required, chain);
  }

  /**
   * One call with the x402 handshake: the request as given; on 402, sign the prompt (identity
   * prompts must ask for exactly 0) and repeat it with `PAYMENT-SIGNATURE`.
   */
  send(...args: Parameters<Connection['send']>): Promise<Response> {
    return this.c.send(...args);
  }

  /**
   * Buys an item: prompt, sign, complete with both legal flags. With `maxPriceUsdc`, a prompt that
   * asks for more is refused before anything is signed (`price_above_limit`, body
   * `{ price_usdc, max_price_usdc }`). Revision A buys through the keyed `POST /api/v1/buy` and
   * answers the same shape, with the keyed invoice route as `invoice_url`.
   */
  acquire(
    itemId: string,
    opts: {
      chain?: Chain;
      maxPriceUsdc?: number;
      /** Runs after the price check, before signing (spending limits, a human's confirmation). */
      approve?: Approve;
      /** Sees the signed payment before it is sent. */
      signed?: OnSigned;
      /** Re-sends a payment signed earlier for this item (same nonce); nothing new is signed. */
      resend?: string;
    } = {},
  ): Promise<Bought> {
    const limit = opts.maxPriceUsdc !== undefined ? priceLimit(opts.maxPriceUsdc) : undefined;
    return this.c.transport.acquire(this.c, itemId, opts, limit);
  }

  /** Fresh signed links for an own completed order (zero-value identity, or the key in Revision A). */
  getOrder(orderId: string): Promise<OrderLinksResult> {
    return this.c.transport.getOrder(this.c, orderId);
  }

  /** Any identity-scoped JSON route. */
  identityCall<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.c.identity<T>(method, path, undefined, body);
  }

  /**
   * Lists an archive: validation first (a malformed upload or a duplicate is refused before any
   * fee), then the listing fee through x402; `approve` sees the fee prompt before anything is signed.
   * Revision A pays no fee and names the public status URL as `invoice_url`. `signed` sees the
   * signed fee before it is sent; `resend` sends a fee signed earlier for these same bytes and
   * metadata again (same nonce), signing nothing new.
   */
  upload(
    bytes: Buffer,
    opts: UploadInput & { chain?: Chain; approve?: Approve; signed?: OnSigned; resend?: string },
  ): Promise<Listed> {
    return this.c.transport.upload(this.c, uploadForm(bytes, opts), opts);
  }

  /** The seller's own listings, every state (zero-value identity). */
  sellerItems(
    query: { status?: ItemStatus; limit?: number; offset?: number } = {},
  ): Promise<SellerItems> {
    return sellerItems(this.c, query);
  }

  /** The owner's view of one listing, scan states included (zero-value identity). */
  sellerItemStatus(itemId: string): Promise<SellerItemStatus> {
    return this.c.transport.sellerItemStatus(this.c, itemId);
  }

  /** Deletes an own listing (idempotent; 404 for a listing that is not the wallet's). */
  deleteItem(itemId: string): Promise<{ ok: true }> {
    return this.c.transport.deleteItem(this.c, itemId);
  }

  /**
   * `{ username, username_type }` of the wallet's account (zero-value identity). Revision A has
   * no route for it: the name this client registered with, or else the `seller_username` of one
   * of the account's active listings; `username_unknown` when neither is at hand.
   */
  getUsername(): Promise<AccountUsername> {
    return this.c.transport.getUsername(this.c);
  }

  /**
   * Changes the username, once: permanent afterwards (409 username_already_changed). Revision A
   * fixes the name at registration: refused here (`not_in_this_revision`) without a request.
   */
  setUsername(username: string): Promise<UsernameResponse> {
    return this.c.transport.setUsername(this.c, username);
  }

  /**
   * The chains the seller accepts sales on. Revision A: the chains where the account has a
   * linked wallet (payable chains follow linked wallets), read from its payouts.
   */
  getSalesChains(): Promise<SalesChainsResponse> {
    return this.c.transport.getSalesChains(this.c);
  }

  /**
   * The chains the seller accepts sales on; omitted ones are opted out. Revision A: links this
   * client's wallet (SIWE link-wallet) on each requested chain that has no linked wallet yet;
   * Revision A cannot unlink, so a list that leaves out a linked chain is refused
   * (`not_in_this_revision`) before anything changes.
   */
  setSalesChains(chains: Chain[]): Promise<SalesChainsResponse> {
    return this.c.transport.setSalesChains(this.c, chains);
  }

  /** Rates and/or reviews a bought item (one feedback per item and buyer). */
  submitFeedback(
    itemId: string,
    body: { rating?: number; text?: string },
  ): Promise<ItemFeedbackCreated> {
    const path = `/api/v1/items/${itemId}/feedback`;
    return this.c.identity('POST', path, ItemFeedbackCreatedSchema, body);
  }

  /** Approved feedback on the seller's items; without `peek` the returned rows become read. */
  inbox(
    query: {
      peek?: boolean;
      include_read?: boolean;
      since?: string;
      until?: string;
      limit?: number;
    } = {},
  ): Promise<InboxResponse> {
    const path = `${this.c.transport.inboxPath}${queryString(query)}`;
    return this.c.identity('GET', path, InboxResponseSchema);
  }

  /** Marks one inbox row read (idempotent; 404 when not the seller's). */
  async ackFeedback(feedbackId: string): Promise<void> {
    const path = this.c.transport.ackPath(feedbackId);
    const res = await this.c.send('POST', path, { pay: 'identity' });
    if (!res.ok) await this.c.json(res);
  }

  /** Feedback to the platform (any wallet; never creates an account; Revision A: text only). */
  platformFeedback(body: { text: string; contact?: string }): Promise<PlatformFeedbackCreated> {
    return this.c.transport.platformFeedback(this.c, body);
  }

  /** Listing counts, revenue and recent sales of the wallet's account (spec 2.8). */
  sellerStats(): Promise<SellerStats> {
    return this.c.identity('GET', '/api/v1/seller/stats', SellerStatsSchema);
  }

  /**
   * Pending payouts per chain and the payout history (spec 2.7). Revision A answers its own shape:
   * `{ payouts }` keyed by linked wallet, with its statuses and no history.
   */
  sellerPayouts(): Promise<SellerPayouts | SellerPayoutsA> {
    return this.c.transport.sellerPayouts(this.c);
  }

  /** The JSON invoice behind a signed invoice link. */
  invoiceJson(url: string): Promise<Invoice> {
    return invoiceJson(this.c, url);
  }

  /** The archive behind a signed download link; `signal` aborts the transfer (it is free to repeat). */
  download(url: string, opts: { signal?: AbortSignal } = {}): Promise<Download> {
    return download(this.c, url, opts);
  }

  invoice(url: string, accept = 'application/json'): Promise<string> {
    return invoice(this.c, url, accept);
  }
}
