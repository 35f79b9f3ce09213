import { x402Client, x402HTTPClient } from '@x402/core/client';
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { LocalAccount } from 'viem';
import type { z } from 'zod';
import { NETWORK_OF, type Chain } from '../wire/chains.js';
import type { SalesChainsResponse, UsernameResponse } from '../wire/accounts.js';
import { ChallengeResponseSchema, type SiweAction } from '../wire/auth.js';
import type { PlatformFeedbackCreated } from '../wire/feedback.js';
import type { SellerItemStatus, UploadResponse } from '../wire/listings.js';
import type { AcquireResponse, OrderLinks } from '../wire/orders.js';
import type { SellerPayouts, SellerPayoutsA } from '../wire/payouts.js';
import { MarketplaceError, readJson } from './errors.js';

export type PayMode = 'none' | 'identity' | 'paid';

/**
 * The prompt with a fresh `payment-identifier` id in its extensions (@x402/extensions' client
 * helper, loaded on the first payment: it brings a JSON Schema validator), when it asks for money
 * and declares the extension; the prompt itself is left as it was.
 */
async function withPaymentId(required: PaymentRequired): Promise<PaymentRequired> {
  const declared = required.extensions?.['payment-identifier'];
  if (!declared || required.accepts.every((a) => a.amount === '0')) return required;
  const { appendPaymentIdentifierToExtensions } =
    await import('@x402/extensions/payment-identifier');
  const extensions = appendPaymentIdentifierToExtensions({
    ...required.extensions,
    'payment-identifier': structuredClone(declared),
  });
  return { ...required, extensions };
}
export type Approve = (required: PaymentRequired) => void | Promise<void>;
/** Sees the signed payment before it is sent (e.g. to keep it for re-sending the same nonce). */
export type OnSigned = (signed: {
  header: string;
  payload: PaymentPayload;
}) => void | Promise<void>;

/** A purchase's options: the chain, the gate before signing, and re-sending a kept signature. */
export interface AcquireOpts {
  chain?: Chain;
  approve?: Approve;
  signed?: OnSigned;
  /**
   * A `PAYMENT-SIGNATURE` signed earlier for this purchase, sent again as it is (same nonce: it
   * can never charge twice); nothing new is signed.
   */
  resend?: string;
}

/** An upload's options: as a purchase's, for its listing fee (Revision A pays none). */
export type UploadOpts = AcquireOpts;

/**
 * The account's username. `username_type` is Revision B's (`automatic` until changed once); a
 * Revision A account has none: its name is fixed when the account is created.
 */
export interface AccountUsername {
  username: string;
  username_type?: UsernameResponse['username_type'];
}

export interface Bought {
  order: AcquireResponse;
  settlement: SettleResponse | undefined;
}
export interface Listed {
  listing: UploadResponse;
  settlement: SettleResponse | undefined;
}

/**
 * How this client names its account to the marketplace: what differs between the contract
 * revisions on the client side. Revision B's wallet identity is wallet-transport.ts, Revision A's
 * API key revision-a.ts; MarketplaceClient picks one and answers in the same shapes either way.
 */
export interface Transport {
  /** True when an API key names the account (Revision A). */
  readonly keyed: boolean;
  /** Headers naming the account on a call to this marketplace (B: none, it signs instead). */
  accountHeaders(): Record<string, string>;
  acquire(
    c: Connection,
    itemId: string,
    opts: AcquireOpts,
    limit: ((required: PaymentRequired) => void) | undefined,
  ): Promise<Bought>;
  getOrder(c: Connection, orderId: string): Promise<OrderLinks>;
  upload(c: Connection, form: () => FormData, opts: UploadOpts): Promise<Listed>;
  sellerItemStatus(c: Connection, itemId: string): Promise<SellerItemStatus>;
  deleteItem(c: Connection, itemId: string): Promise<{ ok: true }>;
  getUsername(c: Connection): Promise<AccountUsername>;
  setUsername(c: Connection, username: string): Promise<UsernameResponse>;
  getSalesChains(c: Connection): Promise<SalesChainsResponse>;
  setSalesChains(c: Connection, chains: Chain[]): Promise<SalesChainsResponse>;
  /** The seller inbox, and the path that acknowledges one of its rows. */
  inboxPath: string;
  ackPath(feedbackId: string): string;
  platformFeedback(
    c: Connection,
    body: { text: string; contact?: string },
  ): Promise<PlatformFeedbackCreated>;
  sellerPayouts(c: Connection): Promise<SellerPayouts | SellerPayoutsA>;
}

/**
 * The marketplace as HTTP with the x402 v2 handshakes: paid and zero-value identity signatures
 * through @x402/core's `x402Client` with @x402/evm's exact scheme (it pays exactly like the
 * official clients), plus the current transport's account headers.
 */
export class Connection {
  readonly address: string;
  readonly fetchFn: typeof globalThis.fetch;
  private readonly payer: x402Client;
  private readonly http: x402HTTPClient;
  private preferredNetwork: string | undefined;
  /** Revision A: the username this account registered with, when this client knows it. */
  username: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly account: LocalAccount,
    public transport: Transport,
    fetchFn: typeof globalThis.fetch | undefined,
    maxPaymentUsdc: number,
  ) {
    this.address = account.address;
    this.fetchFn = fetchFn ?? globalThis.fetch;
    this.payer = new x402Client((_v, reqs) => this.select(reqs));
    this.payer.register('eip155:*', new ExactEvmScheme(account));
    this.payer.setSpendControls({ maxAmountPerPayment: `$${maxPaymentUsdc}` });
    this.http = new x402HTTPClient(this.payer);
  }

  private select(reqs: PaymentRequirements[]): PaymentRequirements {
    return reqs.find((r) => r.network === this.preferredNetwork) ?? reqs[0]!;
  }

  /** Parses the 402 prompt of a response (header first, as the official client does). */
  paymentRequiredOf(res: Response, body: unknown): PaymentRequired {
    return this.http.getPaymentRequiredResponse((n) => res.headers.get(n), body);
  }

  /** Reads a 402 prompt; any other answer is an error (its body's, or `unexpected_response`). */
  async promptOf(first: Response): Promise<PaymentRequired> {
    if (first.status !== 402) {
      await this.json(first);
      throw new MarketplaceError(first.status, 'unexpected_response', undefined);
    }
    return this.paymentRequiredOf(first, await first.json().catch(() => undefined));
  }

  /**
   * Signs a payment for a prompt; returns the `PAYMENT-SIGNATURE` header value. A payment that
   * moves money carries a fresh `payment-identifier` id when the prompt declares the extension:
   * the same signed payment sent again (after a lost answer, a crash, a pending settlement) is
   * then known as its buyer's retry and answered with the result, which a replay of the same
   * authorization by someone who only saw it on the chain is not (docs/payments-edges.md).
   */
  async signPayment(
    required: PaymentRequired,
    chain?: Chain,
  ): Promise<{ header: string; payload: PaymentPayload }> {
    this.preferredNetwork = chain ? NETWORK_OF[chain] : undefined;
    const payload = await this.payer.createPaymentPayload(await withPaymentId(required));
    return {
      header: this.http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!,
      payload,
    };
  }

  /** Revision A: a SIWE challenge for this wallet, signed unchanged with personal_sign. */
  async signedChallenge(
    action: SiweAction,
    chain: Chain = 'base',
  ): Promise<{ message: string; signature: string }> {
    const { message } = await this.postJson(
      '/api/v1/auth/challenge',
      { address: this.address, chain, action },
      ChallengeResponseSchema,
    );
    return { message, signature: await this.account.signMessage({ message }) };
  }

  /** A JSON POST to this marketplace, with the account headers when `named`. */
  async postJson<T>(path: string, body: unknown, schema: z.ZodType<T>, named = false) {
    const res = await this.fetchFn(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(named ? this.transport.accountHeaders() : {}),
      },
      body: JSON.stringify(body),
    });
    return this.json(res, schema);
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
      approve?: Approve;
      signed?: OnSigned;
      /** A payment signed earlier for this same request: sent as it is, nothing new is signed. */
      resend?: string;
    } = {},
  ): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    // Revision A: the key stands in for every identity signature (and names the buyer on /buy).
    const named =
      opts.pay !== 'none' && url.startsWith(this.baseUrl) ? this.transport.accountHeaders() : {};
    const init = (extra: Record<string, string> = {}): RequestInit => ({
      method,
      headers: {
        ...(opts.body !== undefined && { 'content-type': 'application/json' }),
        ...named,
        ...opts.headers,
        ...extra,
      },
      ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
    });
    if (opts.resend) return this.fetchFn(url, init({ 'PAYMENT-SIGNATURE': opts.resend }));
    const first = await this.fetchFn(url, init());
    if (first.status !== 402 || !opts.pay || opts.pay === 'none') return first;
    const body: unknown = await first.json().catch(() => undefined);
    const required = this.paymentRequiredOf(first, body);
    if (opts.pay === 'identity' && required.accepts.some((a) => a.amount !== '0')) {
      throw new MarketplaceError(402, 'unexpected_charge', required);
    }
    await opts.approve?.(required);
    const signed = await this.signPayment(required, opts.chain);
    await opts.signed?.(signed);
    return this.fetchFn(url, init({ 'PAYMENT-SIGNATURE': signed.header }));
  }

  json<T>(res: Response, schema?: z.ZodType<T>): Promise<T> {
    return readJson<T>(res, schema);
  }

  /** An account-scoped JSON call (zero-value identity, or the key in Revision A). */
  async identity<T>(method: string, path: string, schema?: z.ZodType<T>, body?: unknown) {
    return this.json(
      await this.send(method, path, { pay: 'identity', ...(body !== undefined && { body }) }),
      schema,
    );
  }

  /** The account headers for a URL of this marketplace (Revision A's keyed invoice route). */
  ownHeaders(url: string): Record<string, string> {
    return url.startsWith(`${this.baseUrl}/`) ? this.transport.accountHeaders() : {};
  }
}
