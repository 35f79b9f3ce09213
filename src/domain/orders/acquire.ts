import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { PaidOffer, PaidOption } from '../../x402/guard.js';
import { CHAINS, type Chain } from '../../wire/chains.js';
import type { Micro } from '../../wire/money.js';
import { currentLegal } from '../../wire/legal.js';
import type { Pay } from '../payments/fulfilment.js';
import { ClaimConditionFailed, type PaymentProcessor } from '../payments/processor.js';
import { attestationOf, findAttestation, type StoredAttestation } from '../scan/attestation.js';
import { orderLinks, type AcquireContext, type AcquireResult } from './orders.js';
import type { AcquireBody, OrderLinks } from '../../wire/orders.js';
import { revisionBAcquire, type AcquireMode, type AnyAcquireResponse } from './acquire-mode.js';
import { acquireDiscovery } from './discovery-extension.js';
import { catalogueTags } from '../discovery/bazaar.js';

export { revisionBAcquire, type AcquireMode, type AnyAcquireResponse };

export const ACQUIRE_OPERATION = 'acquire';

export interface AcquireDeps {
  sql: Db;
  config: Config;
  payments: PaymentProcessor;
  secrets: { urlSigningKey: Buffer };
  /** What the prompt needs of an item, cached briefly (the claim re-checks it atomically). */
  saleItems?: SaleItemCache;
}

interface SaleItem {
  id: string;
  sellerId: string;
  sellerAddress: string;
  title: string;
  /** Comma-separated stack: the prompt's catalogue tags. */
  techStack: string;
  price: Micro;
  archiveSha256: string;
  /** Payout addresses on the chains the seller accepts sales on right now. */
  payouts: Array<{ chain: Chain; address: string }>;
  /** The item's signed scan report, if it had one when read (a report is never replaced). */
  attestation: StoredAttestation | null;
}

/** Region gating (spec 1.11): before any payment is requested. */
export function assertRegionServed(
  config: Pick<Config, 'REGION_DENY_LIST'>,
  country: string | undefined,
): void {
  const c = country?.trim().toUpperCase();
  if (c && config.REGION_DENY_LIST.some((d) => d.toUpperCase() === c)) {
    throw new AppError('region_unavailable', {
      message:
        'Buying and listing are not available in your region. This is final for this region; discovery stays open.',
    });
  }
}

async function loadSaleItem(sql: Db, itemId: string): Promise<SaleItem> {
  const [item] = await sql<SaleItem[]>`
    select i.id, i.seller_id, a.address as seller_address, i.title, i.tech_stack, i.price_micro as price,
           i.archive_sha256,
           coalesce((select json_agg(json_build_object('chain', pc.chain, 'address', pc.pay_to))
                     from payable_chains pc where pc.agent_id = i.seller_id), '[]') as payouts,
           (select json_build_object('signer', s.signer, 'message', s.message, 'signature', s.signature)
            from scan_attestations s where s.item_id = i.id) as attestation
    from items i join agents a on a.id = i.seller_id
    where i.id = ${itemId} and i.status = 'active'`;
  if (!item) throw new AppError('item_not_found', { message: 'no active item with this id' });
  return item;
}

/**
 * Active items as the acquire prompt needs them (price, seller, payable chains), kept for a short
 * TTL so a completion costs no lookup of its own. Never trusted for money: the nonce claim
 * re-checks status, price, seller and the chosen payout address in the same statement, and a
 * failed re-check drops the entry and answers from a fresh lookup. A delete drops the entry at
 * once, and a seller's change of terms drops all of that seller's entries: in this process, and
 * through `broadcast` (Postgres LISTEN/NOTIFY, ../../runtime.ts) in every other replica, which
 * applies it with `apply`. Only found items are cached.
 */
export class SaleItemCache {
  private readonly entries = new Map<string, { item: SaleItem; expires: number }>();
  /** Tells the other processes of the deployment of an invalidation (none: this one only). */
  broadcast?: (change: SaleItemChange) => void;

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(sql: Db, itemId: string): Promise<{ item: SaleItem; cached: boolean }> {
    const hit = this.entries.get(itemId);
    if (hit && hit.expires > this.now()) return { item: hit.item, cached: true };
    if (hit) this.entries.delete(itemId);
    const item = await loadSaleItem(sql, itemId);
    if (this.entries.size >= this.maxEntries)
      this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(itemId, { item, expires: this.now() + this.ttlMs });
    return { item, cached: false };
  }

  /**
   * True while this very item (as `get` returned it) is still the cached entry: no delete,
   * moderation or change of the seller's terms reached this process since it was read.
   */
  holds(item: Pick<SaleItem, 'id'>): boolean {
    const entry = this.entries.get(item.id);
    return entry !== undefined && entry.item === item && entry.expires > this.now();
  }

  invalidate(itemId: string): void {
    this.apply({ item: itemId });
    this.broadcast?.({ item: itemId });
  }

  /**
   * Drops every cached item of a seller: a change of the seller's terms (sales chains, payout
   * addresses, username) must reach every prompt at once, not after the TTL.
   */
  invalidateSeller(sellerId: string): void {
    this.apply({ seller: sellerId });
    this.broadcast?.({ seller: sellerId });
  }

  /** An invalidation, made here or received from another process. */
  apply(change: SaleItemChange): void {
    if ('item' in change) {
      this.entries.delete(change.item);
      return;
    }
    for (const [id, entry] of this.entries)
      if (entry.item.sellerId === change.seller) this.entries.delete(id);
  }
}

/** What changed: one item (deleted, re-priced) or all of a seller's (terms, payout addresses). */
export type SaleItemChange = { item: string } | { seller: string };

/**
 * True (in the claim statement) while the item is still sold on these terms to this payTo.
 * The item is found by its key alone and its terms compared as values: written as filters beside
 * the key, its status and price matched the partial index of active listings by price, and a plan
 * without statistics (the embedded database never gathers any) walked every active listing at that
 * price to find this one.
 */
export function saleStillValid(
  sql: Db,
  item: Pick<SaleItem, 'id' | 'sellerId'>,
  chain: Chain,
  payTo: string,
  amount: Micro,
) {
  return sql`coalesce((
    select i.status = 'active' and i.seller_id = ${item.sellerId}::uuid and i.price_micro = ${amount}::bigint
    from items i where i.id = ${item.id}::uuid
  ) and exists (
    select 1 from payable_chains pc
    where pc.agent_id = ${item.sellerId}::uuid and pc.chain = ${chain}
      and lower(pc.pay_to) = ${payTo.toLowerCase()}
  ), false)`;
}

/** Chains the seller accepts and has a payout address on (spec 2.1), hint first. */
function saleOptions(item: SaleItem, hint: Chain | undefined): PaidOption[] {
  const options = CHAINS.flatMap((chain) => {
    const row = item.payouts.find((r) => r.chain === chain);
    return row ? [{ chain, payTo: row.address, amount: item.price }] : [];
  });
  // A hint the seller can fulfil goes first (clients sign the first entry); otherwise fall back.
  return options.sort((a, b) => Number(b.chain === hint) - Number(a.chain === hint));
}

/**
 * `POST /api/v1/items/{uuid}/acquire` (both revisions) and `POST /api/v1/buy` (Revision A, keyed):
 * 402 prompt, or a completed purchase.
 * Order of checks: body -> region -> item (briefly cached) -> payable chains -> the key's own
 * listing (Revision A's keyed buy, before any prompt) -> a sign-in's wallet not the seller's ->
 * (signed) legal flags -> signature -> self-purchase (and the mode's payer check) -> claim
 * (re-checking the item) -> settle once per nonce -> order.
 */
export async function acquire(
  deps: AcquireDeps,
  itemId: string,
  body: AcquireBody,
  country: string | undefined,
  pay: Pay,
  mode: AcquireMode = revisionBAcquire,
): Promise<{ response: AnyAcquireResponse; paymentResponseHeader: string | undefined }> {
  // The claim re-checks the item; when it changed since it was read (a cached copy, or a race with
  // the seller) nothing was claimed, and the request is answered again from a fresh read, so the
  // answer is exactly what that fresh read gives (404, 409, a verification failure or a purchase).
  for (let attempt = 0; ; attempt++) {
    try {
      return await acquireOnce(deps, itemId, body, country, pay, attempt > 0, mode);
    } catch (e) {
      if (!(e instanceof ClaimConditionFailed)) throw e;
      deps.saleItems?.invalidate(itemId);
      if (attempt >= 2)
        throw new AppError('item_not_found', { message: 'no active item with this id' });
    }
  }
}

async function acquireOnce(
  deps: AcquireDeps,
  itemId: string,
  body: AcquireBody,
  country: string | undefined,
  pay: Pay,
  fresh: boolean,
  mode: AcquireMode,
): Promise<{ response: AnyAcquireResponse; paymentResponseHeader: string | undefined }> {
  if (body.currency !== undefined && body.currency.toUpperCase() !== 'USDC') {
    throw new AppError('unsupported_currency', { message: 'only USDC is accepted' });
  }
  assertRegionServed(deps.config, country);
  if (fresh) deps.saleItems?.invalidate(itemId);
  let item: SaleItem;
  let options: PaidOption[];
  try {
    item = deps.saleItems
      ? (await deps.saleItems.get(deps.sql, itemId)).item
      : await loadSaleItem(deps.sql, itemId);
    options = saleOptions(item, body.chain);
    if (options.length === 0) {
      throw new AppError('seller_wallet_missing', {
        message: 'the seller accepts no sales on any supported chain right now',
      });
    }
  } catch (err) {
    // Not for sale (any more): the retry of a purchase whose claim is held gets its order or
    // verdict all the same (the seller deleted it, or left every chain, after it was paid).
    if (err instanceof AppError && ['item_not_found', 'seller_wallet_missing'].includes(err.code)) {
      const resumed = await resumeClaimed(deps, itemId, body, pay, mode);
      if (resumed) return resumed;
      return await redeliver(deps, itemId, pay, mode, err);
    }
    throw err;
  }
  const legal = currentLegal(deps.config.PUBLIC_BASE_URL);
  const offer: PaidOffer = {
    options,
    // what a catalogue shows of the purchase: the listing's title and its stack as tags
    description: item.title,
    tags: catalogueTags(item.techStack),
    // A signature made from another listing's prompt (same seller, same price) cannot buy this one.
    bind: { item_id: item.id },
    // built only for a prompt (or a refusal that carries one), not for a signed completion
    extensions: () => {
      const discovery = acquireDiscovery(
        deps.config,
        item,
        options.map((o) => o.chain),
        legal,
        mode,
      );
      return mode.extensions(discovery, deps.config);
    },
    // not on Revision A's keyed purchase: its order belongs to the key's agent
    ...(mode.buyerId === undefined && {
      // The seller's wallet that signs in is refused here, before any payment is asked of it.
      signIn: async (payer: string) => {
        await assertNotSeller(deps.sql, item, mode, payer);
        return (await orderOf(deps.sql, item.id, payer)) !== undefined;
      },
    }),
    ...(mode.completionChain(body) !== undefined && {
      completionChain: mode.completionChain(body),
    }),
    // Payment proof alone is not enough (spec 4.1 rule 6); checked before anything settles.
    beforeVerify: () => {
      mode.beforeVerify(body, options);
      if (body.policy_accepted !== true) {
        throw new AppError('policy_acceptance_required', {
          message: `send policy_accepted: true (terms ${legal.policy.url})`,
        });
      }
      if (body.license_accepted !== true) {
        throw new AppError('license_acceptance_required', {
          message: `send license_accepted: true (license ${legal.license.url})`,
        });
      }
    },
  };
  // The key's own listing: refused before the prompt, so nothing is signed or asked for
  // (a paid retry of it would be refused after the buyer signed).
  if (mode.buyerId === item.sellerId) throw selfPurchase();
  // A wallet that already bought this item may sign in (sign-in-with-x) instead of paying: the
  // same order again, with fresh links. A request that also carries a payment pays.
  const signedIn = offer.signIn && (await pay.signIn?.(offer));
  if (signedIn) {
    const orderId = (await orderOf(deps.sql, item.id, signedIn))!;
    return {
      response: await purchaseAnswer(deps, item, mode, { orderId }, false),
      paymentResponseHeader: undefined,
    };
  }
  const payment = await pay(offer);
  await assertNotSeller(deps.sql, item, mode, payment.payer);
  const context = acquireContext(deps.config, item, mode);
  const done = await deps.payments.run<AcquireContext, AcquireResult>({
    operation: ACQUIRE_OPERATION,
    payment,
    context,
    pendingDetails: (c) => ({ order_id: c.orderId }),
    freshLinks: mode.freshLinks,
    answerMintsLinks: true,
    // the same signature buys this item, on the chain asked for, for this buyer, and nothing else
    request: { item_id: item.id, chain: body.chain ?? null, buyer_id: mode.buyerId ?? null },
    claimCondition: (sql) =>
      saleStillValid(sql, item, payment.chain, payment.requirement.payTo, payment.amount),
  });
  return {
    response: await purchaseAnswer(deps, item, mode, done.result, !done.replayed),
    paymentResponseHeader: done.paymentResponseHeader,
  };
}

const selfPurchase = () =>
  new AppError('self_purchase_forbidden', { message: 'a wallet cannot buy its own listing' });

/** The payer is not the listing's seller (and passes the mode's payer check). */
async function assertNotSeller(
  sql: Db,
  item: Pick<SaleItem, 'sellerAddress' | 'sellerId'>,
  mode: AcquireMode,
  payer: string,
): Promise<void> {
  if (payer === item.sellerAddress.toLowerCase()) throw selfPurchase();
  await mode.payerCheck?.(sql, payer, item.sellerId);
}

/** What a purchase's claim stores: the reserved order id, the item, the legal terms accepted. */
function acquireContext(
  config: Config,
  item: Pick<SaleItem, 'id' | 'sellerId'>,
  mode: AcquireMode,
): AcquireContext {
  const legal = currentLegal(config.PUBLIC_BASE_URL);
  return {
    orderId: randomUUID(),
    itemId: item.id,
    sellerId: item.sellerId,
    legal: {
      policyVersion: legal.policy.version,
      policyUrl: legal.policy.url,
      licenseVersion: legal.license.version,
      licenseUrl: legal.license.url,
    },
    acceptedAt: new Date().toISOString(),
    ...(mode.buyerId && { buyerId: mode.buyerId }),
  };
}

/**
 * A signed purchase whose authorization holds a claim on this route (`Pay.claimed`), answered from
 * that claim while the listing is not for sale: the same request's order (or pending / failed
 * verdict), never a new purchase. Undefined when the request carries no such payment, or the item
 * row is gone.
 */
async function resumeClaimed(
  deps: AcquireDeps,
  itemId: string,
  body: AcquireBody,
  pay: Pay,
  mode: AcquireMode,
): Promise<
  { response: AnyAcquireResponse; paymentResponseHeader: string | undefined } | undefined
> {
  const payment = await pay.claimed?.();
  if (!payment) return undefined;
  const [item] = await deps.sql<Array<{ id: string; sellerId: string; archiveSha256: string }>>`
    select id, seller_id, archive_sha256 from items where id = ${itemId}`;
  if (!item) return undefined;
  const done = await deps.payments.run<AcquireContext, AcquireResult>({
    operation: ACQUIRE_OPERATION,
    payment,
    // never stored: a resumed payment is answered from its claim, whose context stands
    context: acquireContext(deps.config, item, mode),
    pendingDetails: (c) => ({ order_id: c.orderId }),
    freshLinks: mode.freshLinks,
    answerMintsLinks: true,
    request: { item_id: item.id, chain: body.chain ?? null, buyer_id: mode.buyerId ?? null },
  });
  return {
    response: await purchaseAnswer(deps, { ...item, attestation: null }, mode, done.result, false),
    paymentResponseHeader: done.paymentResponseHeader,
  };
}

/**
 * "Already paid? Deliver again" for a listing that can no longer be paid (deleted, hidden after
 * the purge, the seller accepts no chain or has no payout address on any): a buyer must still get
 * the bytes again, as the order's own links serve them, so a valid sign-in-with-x proof of a
 * wallet with a completed order of the item answers that order. Anyone else gets the listing's
 * own answer (`notForSale`: 404 or 409, never a payment prompt), whose body carries the sign-in
 * challenge as a prompt would (`extensions["sign-in-with-x"]`): the buyer's client signs it. Not
 * on Revision A's keyed purchase (its order belongs to the key's agent).
 */
async function redeliver(
  deps: AcquireDeps,
  itemId: string,
  pay: Pay,
  mode: AcquireMode,
  notForSale: AppError,
): Promise<{ response: AnyAcquireResponse; paymentResponseHeader: undefined }> {
  if (mode.buyerId !== undefined || !pay.signIn || !pay.signInChallenge) throw notForSale;
  const offer: PaidOffer = {
    options: [],
    description: 'Already paid? Sign in with the buying wallet to receive the order again.',
    bind: { item_id: itemId },
    signIn: async (payer: string) => (await orderOf(deps.sql, itemId, payer)) !== undefined,
    // a valid signer without an order gets the listing's answer, not a prompt to pay
    beforePrompt: () => {
      throw notForSale;
    },
  };
  const payer = await pay.signIn(offer);
  if (!payer) {
    throw new AppError(notForSale.code, {
      ...notForSale.extras,
      details: { ...notForSale.extras.details, extensions: await pay.signInChallenge() },
      headers: { ...notForSale.extras.headers, 'Cache-Control': 'no-store' },
    });
  }
  const [item] = await deps.sql<Array<{ id: string; archiveSha256: string }>>`
    select id, archive_sha256 from items where id = ${itemId}::uuid`;
  const orderId = await orderOf(deps.sql, itemId, payer);
  if (!item || !orderId) throw notForSale;
  return {
    response: await purchaseAnswer(deps, { ...item, attestation: null }, mode, { orderId }, false),
    paymentResponseHeader: undefined,
  };
}

/**
 * The answer of a purchase: the order, its freshly signed links and the item's attestation. A
 * purchase this request just completed answers with the report read with the item (a report is
 * never replaced) as `active` (the statement found the item active), while the cache still holds
 * that item (nothing deactivated it since): no query of its own. Anything else reads it afresh.
 * `active` is the item as the purchase found it: a takedown on another replica whose notice has
 * not reached this one yet shows at the next read of the attestation (no money rides on it: the
 * purchase itself checked the status).
 */
async function purchaseAnswer(
  deps: AcquireDeps,
  item: Pick<SaleItem, 'id' | 'archiveSha256' | 'attestation'>,
  mode: AcquireMode,
  result: AcquireResult,
  justBought: boolean,
): Promise<AnyAcquireResponse> {
  const links: OrderLinks = orderLinks(deps.config, deps.secrets.urlSigningKey, {
    id: result.orderId,
    archiveSha256: item.archiveSha256,
  });
  // the signed scan report of what was bought (issue 29): the buyer checks the download against it
  const attestation =
    justBought && item.attestation && deps.saleItems?.holds(item)
      ? attestationOf({ ...item.attestation, itemId: item.id, active: true })
      : await findAttestation(deps.sql, item.id);
  return { ...mode.response(deps.config, result, links), ...(attestation && { attestation }) };
}

/** The latest completed order of this item paid by, or placed for the wallet of, `wallet`. */
async function orderOf(sql: Db, itemId: string, wallet: string): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`
    select o.id from orders o join agents a on a.id = o.buyer_id
    where o.item_id = ${itemId}::uuid and o.status = 'completed'
      and (lower(o.payer) = ${wallet} or lower(a.address) = ${wallet})
    order by o.completed_at desc limit 1`;
  return row?.id;
}
