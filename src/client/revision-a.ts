import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { CHAINS, chainOfNetwork, type Chain } from '../wire/chains.js';
import {
  LinkWalletResponseSchema,
  RegisterResponseSchema,
  RotateKeyResponseSchema,
} from '../wire/auth.js';
import { PlatformFeedbackCreatedSchema } from '../wire/feedback.js';
import { PublicItemSchema, PublicStatusSchema } from '../wire/items.js';
import {
  DeleteMessageSchema,
  KeyedUploadResponseSchema,
  type ItemStatus,
} from '../wire/listings.js';
import { BuyResponseSchema, DownloadLinkSchema } from '../wire/orders.js';
import { SellerPayoutsASchema } from '../wire/payouts.js';
import type { AccountUsername, AcquireOpts, Bought, Connection, Transport } from './connection.js';
import { MarketplaceError } from './errors.js';
import { sellerItems } from './listings.js';

/** A client-side refusal: the operation does not exist in the marketplace's contract revision. */
function notInRevisionA(message: string): MarketplaceError {
  return new MarketplaceError(0, 'not_in_this_revision', {
    error: 'not_in_this_revision',
    message,
  });
}

const keyedInvoiceUrl = (c: Connection, orderId: string) =>
  `${c.baseUrl}/api/v1/orders/${orderId}/invoice`;

/**
 * Revision A (API keys; spec 4.2, 5.1): the key names the account on every account route,
 * purchases go through the keyed `POST /api/v1/buy`, uploads pay no fee, and what Revision A has
 * no route for is answered from what it has (or refused with `not_in_this_revision`).
 */
export class KeyedTransport implements Transport {
  readonly keyed = true;
  readonly inboxPath = '/api/v1/feedback/inbox';

  constructor(private readonly key: string) {}

  accountHeaders(): Record<string, string> {
    return { 'x-api-key': this.key };
  }

  /** `POST /api/v1/buy`; the completion names the item and the chain that was signed. */
  async acquire(
    c: Connection,
    itemId: string,
    opts: AcquireOpts,
    limit: ((required: PaymentRequired) => void) | undefined,
  ): Promise<Bought> {
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      c.fetchFn(`${c.baseUrl}/api/v1/buy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.accountHeaders(), ...extra },
        body: JSON.stringify(body),
      });
    let header = opts.resend;
    let chain = opts.chain;
    if (!header) {
      const required = await c.promptOf(
        await post({ item_id: itemId, ...(opts.chain && { chain: opts.chain }) }),
      );
      limit?.(required);
      await opts.approve?.(required);
      const signed = await c.signPayment(required, opts.chain);
      await opts.signed?.(signed);
      header = signed.header;
      chain = chainOfNetwork(signed.payload.accepted.network);
    }
    const res = await post(
      { item_id: itemId, chain, policy_accepted: true, license_accepted: true },
      { 'PAYMENT-SIGNATURE': header },
    );
    const receipt = res.headers.get('PAYMENT-RESPONSE');
    const bought = await c.json(res, BuyResponseSchema);
    return {
      // The keyed invoice route (this client sends the key when it reads it).
      order: { ...bought, invoice_url: keyedInvoiceUrl(c, bought.order_id) },
      settlement: receipt ? decodePaymentResponseHeader(receipt) : undefined,
    };
  }

  async getOrder(c: Connection, orderId: string) {
    const links = await c.identity('GET', `/api/v1/orders/${orderId}/download`, DownloadLinkSchema);
    return { ...links, invoice_url: keyedInvoiceUrl(c, orderId) };
  }

  /** No fee; the answer names the public status URL instead of a fee invoice. */
  async upload(c: Connection, form: () => FormData) {
    const res = await c.fetchFn(`${c.baseUrl}/api/v1/items`, {
      method: 'POST',
      body: form(),
      headers: this.accountHeaders(),
    });
    const listed = await c.json(res, KeyedUploadResponseSchema);
    return {
      listing: { item_id: listed.item_id, status: listed.status, invoice_url: listed.status_url },
      settlement: undefined,
    };
  }

  /** Revision A's public status shows the scan states (404 once deleted). */
  async sellerItemStatus(c: Connection, itemId: string) {
    const { status, reason } = await c.json(
      await c.fetchFn(`${c.baseUrl}/api/v1/items/${itemId}/status`),
      PublicStatusSchema,
    );
    return { status: status as ItemStatus, reason };
  }

  async deleteItem(c: Connection, itemId: string): Promise<{ ok: true }> {
    await c.identity('DELETE', `/api/v1/items/${itemId}`, DeleteMessageSchema);
    return { ok: true };
  }

  /**
   * No route reads it: the name this client registered with, or else the `seller_username` of
   * one of the account's active listings; `username_unknown` when neither is at hand.
   */
  async getUsername(c: Connection): Promise<AccountUsername> {
    if (c.username) return { username: c.username };
    const [active] = (await sellerItems(c, { status: 'active', limit: 1 })).items;
    if (active) {
      const item = await c.json(
        await c.fetchFn(`${c.baseUrl}/api/v1/items/${active.item_id}`),
        PublicItemSchema,
      );
      const username = item.metadata.seller_username;
      if (username) return { username: (c.username = username) };
    }
    throw new MarketplaceError(0, 'username_unknown', {
      error: 'username_unknown',
      message:
        'Revision A has no route that reads an account’s username: it is fixed at registration and shown as seller_username on the account’s active listings, and this account has none',
    });
  }

  setUsername(): Promise<never> {
    return Promise.reject(
      notInRevisionA(
        'Revision A fixes the username when the account is registered; no route changes it',
      ),
    );
  }

  /** The chains where the account has a linked wallet (payable chains follow linked wallets). */
  async getSalesChains(c: Connection) {
    const { payouts } = await c.identity('GET', '/api/v1/seller/payouts', SellerPayoutsASchema);
    return {
      sales_chains: CHAINS.filter((ch) => payouts.some((p) => p.chain === ch && p.seller_wallet)),
    };
  }

  /**
   * Links this client's wallet on each requested chain without a linked wallet; Revision A cannot
   * unlink, so a list that leaves out a linked chain is refused before anything changes.
   */
  async setSalesChains(c: Connection, chains: Chain[]) {
    const { sales_chains: linked } = await this.getSalesChains(c);
    const dropped = linked.filter((ch) => !chains.includes(ch));
    if (dropped.length) {
      throw notInRevisionA(
        `Revision A cannot stop sales on a chain where the account has a linked wallet (${dropped.join(', ')}): it has no route to unlink one; nothing was changed`,
      );
    }
    for (const chain of CHAINS) {
      if (chains.includes(chain) && !linked.includes(chain)) await linkWallet(c, chain);
    }
    return this.getSalesChains(c);
  }

  ackPath(feedbackId: string): string {
    return `/api/v1/feedback/${feedbackId}/ack`;
  }

  /** Revision A takes only the text. */
  platformFeedback(c: Connection, body: { text: string }) {
    const sent = { text: body.text };
    return c.identity('POST', '/api/v1/feedback/platform', PlatformFeedbackCreatedSchema, sent);
  }

  /** Revision A's own shape: `{ payouts }` keyed by linked wallet, its statuses, no history. */
  sellerPayouts(c: Connection) {
    return c.identity('GET', '/api/v1/seller/payouts', SellerPayoutsASchema);
  }
}

/**
 * Registration with this wallet on `chains` (one signed challenge each); the key (returned once)
 * becomes the connection's transport.
 */
export async function register(
  c: Connection,
  input: { username: string; country: string; chains?: Chain[] },
): Promise<{ agent_id: string; api_key: string }> {
  const wallets = [];
  for (const chain of input.chains ?? ['base', 'polygon']) {
    wallets.push({ chain, address: c.address, ...(await c.signedChallenge('register', chain)) });
  }
  const res = await c.postJson(
    '/api/v1/register',
    { username: input.username, country: input.country, terms_agreed: true, wallets },
    RegisterResponseSchema,
  );
  c.transport = new KeyedTransport(res.api_key);
  c.username = input.username;
  return res;
}

/** A new key for this wallet's account (the old one stops working); kept by the connection. */
export async function rotateKey(
  c: Connection,
  chain: Chain,
): Promise<{ api_key: string; agent_id: string }> {
  const res = await c.postJson(
    '/api/v1/auth/rotate-key',
    await c.signedChallenge('rotate-key', chain),
    RotateKeyResponseSchema,
  );
  c.transport = new KeyedTransport(res.api_key);
  return res;
}

/** Links this client's wallet on `chain` to the account of the current key. */
export async function linkWallet(c: Connection, chain: Chain): Promise<{ message: string }> {
  return c.postJson(
    '/api/v1/auth/link-wallet',
    await c.signedChallenge('link-wallet', chain),
    LinkWalletResponseSchema,
    true,
  );
}
