import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { publishedScanReportProblem } from '../../src/client/attestation.js';
import { MarketplaceError } from '../../src/client/errors.js';
import type { MarketplaceClient } from '../../src/client/index.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { currentLegal } from '../../src/wire/legal.js';
import type { AcquireResponse } from '../../src/wire/orders.js';
import type { McpDeps } from '../deps.js';
import type { LocalOrder } from '../state.js';
import { AcquireResultSchema, deliverOrder, paidThenCancelled } from './acquire-delivery.js';
import {
  authorizePayment,
  chainOf,
  offerOf,
  PaymentRefused,
  promptPriceUsdc,
  quoted,
  pendingPayment,
  releasePayment,
  spentPayment,
} from './paying.js';
import { Cancelled, Progress } from './progress.js';
import {
  apiFailure,
  bodyOf,
  failure,
  mayStillSettle,
  nothingCharged,
  spentOn,
  success,
  type ErrorBody,
} from './results.js';

export { AcquireResultSchema };

export const NO_WALLET =
  'This MCP server has no wallet. The operator must set MCP_WALLET_PRIVATE_KEY (a 0x-prefixed hex private key ' +
  'of a wallet holding USDC on base or polygon) and restart the server. Nothing was signed or charged.';

/** Purchases under way, per wallet and item: a concurrent retry must not pay a second time. */
const inFlight = new Set<string>();

export function registerAcquireItem(server: McpServer, deps: McpDeps): void {
  const legal = currentLegal(deps.baseUrl);
  const { limits } = deps;
  const cap = limits.perPurchase;
  server.registerTool(
    'acquire_item',
    {
      title: 'Buy listing',
      description:
        "Buys one listing, downloads the archive into this server's download folder, checks its SHA-256 against the marketplace's digest " +
        "and its signed scan report (EIP-712, verified against the marketplace's published attestation addresses before paying, and against the archive after), " +
        "and on request unpacks it into a new folder (refusing unsafe entries with the marketplace scan's rules). Use it once the user " +
        `has chosen an item and agreed to its price (check it with quote_item). Costs the item's price in USDC from this server's wallet (x402); ` +
        `this server pays at most ${cap} USDC per purchase and ${limits.daily} USDC per rolling 24 hours, and asks the human above ${limits.confirmAbove} USDC. ` +
        'Buying the same listing again is refused (returning the earlier order) unless buy_again is true; for fresh links use get_order. ' +
        'When an earlier purchase of this listing ended settlement_pending, it first re-sends that same signed payment (it cannot charge twice) ' +
        'and answers how it ended: the order, still pending (call again later), or released with nothing charged (call again to buy). ' +
        `Buying accepts the marketplace policy (${legal.policy.url}) and the buyer license (${legal.license.url}). ` +
        'Reports progress (quote, payment, download, checks, unpack); cancelled before the payment is signed, nothing is paid; ' +
        'cancelled after, the order is kept and recorded (no second purchase) and download_order fetches the archive. ' +
        'Returns { order_id, download_url, invoice_url, expires_in, price_usdc, chain, archive: { path, sha256 }, unpacked? }; ' +
        'the URLs are short-lived bearer credentials: do not share them.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
        chain: ChainSchema.optional().describe(
          'Chain to pay on, "base" or "polygon"; one of the item\'s available_chains. Omit to use the first chain the seller accepts',
        ),
        max_price_usdc: z
          .number()
          .positive()
          .max(100)
          .describe(
            'The most the user agreed to pay, in USDC, >0 and <=100. A higher price is refused before anything is signed',
          ),
        accept_terms: z
          .literal(true)
          .describe(
            `Must be true: the user accepts the policy ${legal.policy.url} and the buyer license ${legal.license.url}`,
          ),
        unpack: z
          .boolean()
          .optional()
          .describe('true: also unpack the archive into a new folder beside it (default false)'),
        buy_again: z
          .boolean()
          .optional()
          .describe(
            'true: pay again although this wallet already bought this listing (default false: refused, returning the earlier order)',
          ),
      },
      outputSchema: AcquireResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async ({ item_id, chain, max_price_usdc, unpack, buy_again }, extra) => {
      if (!deps.wallet) return failure(`acquire_item failed: ${NO_WALLET}`);
      let wallet: MarketplaceClient;
      try {
        wallet = await deps.wallet();
      } catch (err) {
        return apiFailure(err, 'acquire_item', deps.baseUrl);
      }
      const key = `${wallet.address}:${item_id}`;
      if (inFlight.has(key))
        return failure(
          'acquire_item refused: a purchase of this listing by this wallet is already under way. Nothing was signed; wait for it and check list_my_orders.',
        );
      inFlight.add(key);
      try {
        // a payment of this listing whose outcome is unknown is settled first: never a second one
        const pending = (await deps.state.orders(wallet.address)).find(
          (o) => o.item_id === item_id && o.status === 'settlement_pending',
        );
        if (pending) {
          const settled = await settlePending(deps, wallet, pending);
          if ('result' in settled) return settled.result;
          const progress = new Progress(extra, unpack ? 3 : 2);
          return await deliverOrder(deps, wallet, progress, { ...settled, item_id, unpack });
        }
        const earlier = await deps.state.orderOfItem(wallet.address, item_id);
        if (earlier && !buy_again) {
          return failure(
            `acquire_item refused: this wallet already bought this listing on ${earlier.bought_at} (order_id ${earlier.order_id}, ${earlier.price_usdc} USDC, ` +
              `status ${earlier.status}${earlier.local_path ? `, saved at ${earlier.local_path}` : ''}). Nothing was signed. ` +
              `For fresh download links call get_order { order_id: "${earlier.order_id}" }; only if the user wants to pay for it again, call acquire_item with buy_again: true.`,
          );
        }
        // quote, pay, download, check and save, (unpack)
        const progress = new Progress(extra, unpack ? 5 : 4);
        return await buy(server, deps, wallet, progress, {
          item_id,
          chain,
          max_price_usdc,
          unpack,
        });
      } finally {
        inFlight.delete(key);
      }
    },
  );
}

async function buy(
  server: McpServer,
  deps: McpDeps,
  wallet: MarketplaceClient,
  progress: Progress,
  args: { item_id: string; chain?: 'base' | 'polygon'; max_price_usdc: number; unpack?: boolean },
) {
  const { item_id, chain, max_price_usdc } = args;
  const cap = deps.limits.perPurchase;
  const [item, report] = await Promise.all([
    deps.catalog.getItem(item_id).catch(() => undefined),
    reportProblem(deps, item_id),
  ]);
  if (report)
    return failure(`acquire_item refused before paying: ${report} Nothing was signed or charged.`);
  let reservation: string | undefined;
  let price = 0;
  let paidOn = chain ?? 'unknown';
  let order: AcquireResponse;
  let transaction: string | undefined;
  let sent: { header: string; validBefore?: number } | undefined;
  /**
   * The local id of the record written BEFORE the signed payment is sent: if its answer is lost
   * (connection dropped, timeout, this process killed), the next acquire finds it pending and
   * re-sends the same signature instead of signing a second payment that could also settle.
   */
  let unconfirmed: string | undefined;
  /** This purchase as the local order list keeps it. */
  const orderRecord = (order_id: string, status: LocalOrder['status'], tx?: string) => ({
    order_id,
    item_id,
    wallet: wallet.address,
    ...(item?.metadata.title && { title: item.metadata.title }),
    ...(item?.metadata.seller_username && { seller_username: item.metadata.seller_username }),
    price_usdc: price,
    chain: paidOn,
    ...(tx && { transaction: tx }),
    status,
    bought_at: new Date().toISOString(),
  });
  /** A purchase whose outcome is not known yet, kept with the signed payment to re-send it (settlePending). */
  const pendingRecord = (order_id: string, tx?: string): LocalOrder => ({
    ...orderRecord(order_id, 'settlement_pending', tx),
    ...(sent && { payment: sent.header }),
    ...(chain && { payment_chain: chain }),
    ...(sent?.validBefore !== undefined && { valid_before: sent.validBefore }),
    ...(reservation && { spend_id: reservation }),
  });
  try {
    progress.check();
    await progress.step('asking the marketplace for the price');
    const res = await wallet.acquire(item_id, {
      ...(chain && { chain }),
      maxPriceUsdc: Math.min(max_price_usdc, cap),
      approve: async (required) => {
        price = promptPriceUsdc(required);
        paidOn = chainOf(required, chain);
        const offer = offerOf(required, chain);
        progress.check();
        reservation = await authorizePayment(
          server,
          deps,
          wallet.address,
          {
            kind: 'purchase',
            usdc: price,
            ref: item_id,
            offer,
            // our own fields first; the seller's title only quoted, cut and stripped of controls
            summary:
              `listing ${item_id} from seller ${item?.metadata.seller_username ?? 'unknown'}, paid on ${paidOn} ` +
              `to ${offer?.payTo ?? 'unknown'} from wallet ${wallet.address}` +
              (item?.metadata.title ? ` (seller's title: "${quoted(item.metadata.title)}")` : ''),
          },
          progress.signal,
        );
        await progress.step(`paying ${price} USDC on ${paidOn}`);
      },
      signed: async ({ header, payload }) => {
        sent = { header, ...validBeforeOf(payload.payload) };
        unconfirmed = `unconfirmed-${randomUUID()}`;
        await deps.state.recordOrder(pendingRecord(unconfirmed));
      },
    });
    order = res.order;
    transaction = res.settlement?.transaction || undefined;
    if (unconfirmed) await deps.state.forgetOrder(unconfirmed);
  } catch (err) {
    if (err instanceof PaymentRefused) return failure(`acquire_item refused: ${err.text}`);
    // without a reservation nothing was signed
    if (err instanceof Cancelled || (progress.cancelled && !reservation))
      return failure(
        'acquire_item cancelled before the payment was signed: nothing was paid or recorded.',
      );
    if (reservation) {
      if (nothingCharged(err)) await releasePayment(deps, reservation);
      else if (mayStillSettle(err))
        // it may still settle: counted until settlePending learns how it ended
        await pendingPayment(deps, reservation);
      else await spentPayment(deps, reservation);
    }
    // refused, nothing charged: the signed payment is of no more use. Any other failure keeps the
    // record (outcome unknown), unless the marketplace named the order (below).
    const named = mayStillSettle(err) && !!bodyOf(err).order_id;
    if (unconfirmed && (nothingCharged(err) || named)) await deps.state.forgetOrder(unconfirmed);
    if (named) {
      const b = bodyOf(err);
      await deps.state.recordOrder(pendingRecord(b.order_id!, b.transaction));
    }
    const failed = apiFailure(err, 'acquire_item', deps.baseUrl, {
      price_above_limit: (b: ErrorBody) =>
        (b.price_usdc ?? 0) > cap
          ? `The price is ${b.price_usdc} USDC, above this server's cap of ${cap} USDC per purchase (MCP_MAX_PAYMENT_USDC). Nothing was signed; only the operator can raise the cap.`
          : `The price is ${b.price_usdc} USDC, above max_price_usdc ${max_price_usdc}. Nothing was signed. If the user agrees to pay ${b.price_usdc} USDC, call again with max_price_usdc >= ${b.price_usdc}.`,
      self_purchase_forbidden:
        "The configured wallet is this listing's seller; a seller cannot buy its own listing.",
      payment_settlement_pending: (b: ErrorBody) =>
        `The payment may have been charged and its outcome is unknown (${b.transaction ? `transaction ${b.transaction}` : 'no transaction named yet'} on ${b.network ?? '?'}` +
        `${b.order_id ? `, order_id ${b.order_id}` : ''}). Do NOT pay again: a new payment could pay twice. ` +
        `${b.order_id ? `Once settled, get_order { order_id: "${b.order_id}" } gives the links. ` : ''}` +
        `To learn how it ended, call acquire_item again with the same arguments in a minute${sent?.validBefore ? ` (or after ${new Date(sent.validBefore * 1000).toISOString()}, when its window closes)` : ''}: ` +
        'it re-sends this same signed payment, which cannot charge twice, and answers the order, still pending, or released with nothing charged.',
      payment_settlement_failed: (b: ErrorBody) => {
        const decided = decidedAt(sent?.validBefore, b);
        return (
          `The facilitator reported the payment as failed${b.reason ? ` (reason: ${b.reason})` : ''}, but the transfer may still be mined` +
          `${decided ? ` until ${decided}` : ''}: it is kept as settlement_pending and still counts against the budget. Do NOT pay again: a new payment could pay twice. ` +
          `To learn how it ended, call acquire_item again with the same arguments${decided ? ` after ${decided}` : ' later'}: ` +
          'it re-sends this same signed payment, which cannot charge twice, and answers the order if the transfer was mined, or releases it with nothing charged once the failure is final.'
        );
      },
    });
    // the signed payment went out and no answer came back (connection lost, timeout): it is kept
    if (unconfirmed && !(err instanceof MarketplaceError))
      return failure(
        `${(failed.content[0] as { text: string }).text} The payment was signed and sent before the answer was lost, so it may have been charged: ` +
          'it is kept. Do NOT pay another way; call acquire_item again with the same arguments: it re-sends that same signed payment ' +
          '(it cannot charge twice) and answers the order.',
      );
    return failed;
  }
  if (reservation) await spentPayment(deps, reservation);
  const record = orderRecord(order.order_id, 'completed', transaction);
  await deps.state.recordOrder(record);
  const base: z.infer<typeof AcquireResultSchema> = {
    ...order,
    item_id,
    price_usdc: price,
    chain: paidOn,
    ...(transaction && { transaction }),
  };
  if (progress.cancelled) {
    // paid and recorded (no second purchase, the budget counts it); the download can wait
    paidThenCancelled(deps, base, 'before the download');
    return success({
      ...base,
      note: `Paid and recorded, then cancelled before the download. Do not pay again: call download_order { order_id: "${order.order_id}" }.`,
    });
  }
  return deliverOrder(deps, wallet, progress, {
    order,
    item_id,
    base,
    record,
    unpack: args.unpack,
  });
}

/** The authorization's validBefore (unix seconds) of an exact EVM payload. */
export function validBeforeOf(payload: Record<string, unknown>): { validBefore?: number } {
  const auth = payload.authorization as { validBefore?: unknown } | undefined;
  const v = Number(auth?.validBefore);
  return Number.isFinite(v) && v > 0 ? { validBefore: v } : {};
}

export const VALID_BEFORE_REASON = 'invalid_exact_evm_payload_authorization_valid_before';

/**
 * When a payment answered 402 `payment_settlement_failed` is decided (ISO): the marketplace's
 * `decided_after` (validBefore plus its chain-clock grace), and never before the authorization's
 * own validBefore (a marketplace that names no time, e.g. the dev ledger's). Undefined when
 * neither is known: then it is never released on this server's clock.
 */
export function decidedAt(validBefore: number | undefined, b: ErrorBody): string | undefined {
  const times = [
    b.decided_after ? Date.parse(b.decided_after) : NaN,
    validBefore !== undefined ? validBefore * 1000 : NaN,
  ].filter(Number.isFinite);
  return times.length ? new Date(Math.max(...times)).toISOString() : undefined;
}

/**
 * An earlier purchase of this listing ended `settlement_pending`: its SAME signed payment is sent
 * again (same nonce, so it can never charge twice; nothing new is signed while it can still
 * settle). 200: the order, recorded as bought (the spend stays counted). Refused before settlement
 * once its window passed (or the marketplace released it): nothing was charged, the record says
 * released and the spend goes back to the budget. 409: still pending, and when to ask again.
 */
async function settlePending(
  deps: McpDeps,
  wallet: MarketplaceClient,
  pending: LocalOrder,
): Promise<
  | { result: CallToolResult }
  | {
      order: AcquireResponse;
      base: z.infer<typeof AcquireResultSchema>;
      record: LocalOrder;
    }
> {
  const { order_id, item_id } = pending;
  const closes = pending.valid_before
    ? new Date(pending.valid_before * 1000).toISOString()
    : undefined;
  if (!pending.payment) {
    // recorded before payments were kept: only the order's links can tell
    try {
      await wallet.getOrder(order_id);
      await deps.state.recordOrder({ ...pending, status: 'completed' });
      return {
        result: failure(
          `acquire_item: the earlier payment for this listing settled (order_id ${order_id}). Nothing was signed. ` +
            `Do not pay again: call get_order { order_id: "${order_id}" } for the download links.`,
        ),
      };
    } catch {
      return {
        result: failure(
          `acquire_item refused: an earlier payment for this listing (order_id ${order_id}) is still settlement_pending and its outcome is unknown. ` +
            `Nothing was signed. Do NOT pay again; check later with get_order { order_id: "${order_id}" }.`,
        ),
      };
    }
  }
  let res: Awaited<ReturnType<MarketplaceClient['acquire']>>;
  try {
    res = await wallet.acquire(item_id, {
      resend: pending.payment,
      ...(pending.payment_chain && { chain: pending.payment_chain }),
    });
  } catch (err) {
    const b = err instanceof MarketplaceError ? bodyOf(err) : {};
    const spent = spentOn(err);
    if (spent && (spent === order_id || order_id.startsWith('unconfirmed-'))) {
      // it settled and the order exists: its links come with this wallet's proof (get_order), not
      // with this re-send (past its window, or its first answer was given)
      if (pending.spend_id) await spentPayment(deps, pending.spend_id);
      await deps.state.recordOrder({ ...pending, order_id: spent, status: 'completed' });
      if (spent !== order_id) await deps.state.forgetOrder(order_id);
      return {
        result: failure(
          `acquire_item: the earlier payment for this listing settled (order_id ${spent}). Nothing was signed. ` +
            `Do not pay again: call get_order { order_id: "${spent}" } for the download links.`,
        ),
      };
    }
    const expired =
      (pending.valid_before !== undefined && Date.now() / 1000 > pending.valid_before) ||
      b.reason === VALID_BEFORE_REASON;
    if (
      err instanceof MarketplaceError &&
      err.code === 'payment_verification_failed' &&
      expired &&
      nothingCharged(err)
    ) {
      // its window closed unsettled: it can never be charged now
      // back in the 24-hour budget and the cap of the session that signed it
      if (pending.spend_id) await releasePayment(deps, pending.spend_id);
      await deps.state.recordOrder({ ...pending, status: 'released' });
      return {
        result: failure(
          `acquire_item: the earlier payment for this listing (order_id ${order_id}, ${pending.price_usdc} USDC) was released: ` +
            `it never settled and its authorization expired${closes ? ` at ${closes}` : ''}, so nothing was charged and no order exists. ` +
            `Its ${pending.price_usdc} USDC are back in the 24-hour budget. Nothing new was signed. ` +
            'If the user still wants this listing, call acquire_item again with the same arguments: it signs a fresh payment.',
        ),
      };
    }
    // answered as failed at settlement, and decided: the window closed without the transfer mined
    // (a mined one answers its order), so the failure is final and nothing was charged
    const decided =
      err instanceof MarketplaceError && err.code === 'payment_settlement_failed'
        ? decidedAt(pending.valid_before, b)
        : undefined;
    if (decided && Date.now() > Date.parse(decided)) {
      if (pending.spend_id) await releasePayment(deps, pending.spend_id);
      await deps.state.recordOrder({ ...pending, status: 'released' });
      return {
        result: failure(
          `acquire_item: the earlier payment for this listing (order_id ${order_id}, ${pending.price_usdc} USDC) was released: ` +
            `the facilitator reported it failed${b.reason ? ` (reason: ${b.reason})` : ''} and its transfer was not mined by ${decided}, so nothing was charged and no order exists. ` +
            `Its ${pending.price_usdc} USDC are back in the 24-hour budget. Nothing new was signed. ` +
            'If the user still wants this listing, call acquire_item again with the same arguments: it signs a fresh payment.',
        ),
      };
    }
    if (mayStillSettle(err)) {
      const after = decided ?? closes;
      return {
        result: failure(
          `acquire_item: the earlier payment for this listing (order_id ${order_id}) is still settlement_pending; re-sending the same signed payment ` +
            `(it cannot charge twice) gave no outcome yet (HTTP ${err.status} ${err.code}). Nothing new was signed. Do NOT pay again. ` +
            (after
              ? `It is decided from the chain by ${after}. Call acquire_item again after ${after}.`
              : 'Call acquire_item again later.'),
        ),
      };
    }
    return {
      result: apiFailure(err, 'acquire_item', deps.baseUrl, {
        payment_verification_failed: (e: ErrorBody) =>
          `Re-sending the earlier payment for this listing (order_id ${order_id}, still settlement_pending) was refused${e.reason ? ` (reason: ${e.reason})` : ''}. ` +
          `Nothing new was signed. Do NOT pay again before ${closes ?? 'it is resolved'}; then call acquire_item again.`,
      }),
    };
  }
  const transaction = res.settlement?.transaction || pending.transaction;
  if (pending.spend_id) await spentPayment(deps, pending.spend_id);
  const record: LocalOrder = {
    ...pending,
    order_id: res.order.order_id,
    ...(transaction && { transaction }),
    status: 'completed',
  };
  await deps.state.recordOrder(record);
  // a payment kept under a local id (its answer was lost): the order now has its own record
  if (record.order_id !== order_id) await deps.state.forgetOrder(order_id);
  return {
    order: res.order,
    record,
    base: {
      ...res.order,
      item_id,
      price_usdc: pending.price_usdc,
      chain: pending.chain ?? 'unknown',
      ...(transaction && { transaction }),
    },
  };
}

/**
 * The listing's signed scan report, checked before anything is signed (the same check as after
 * the download, less the archive's digest): a report the marketplace's published signers did not
 * sign, or that does not verify, costs nothing. A listing without a report (404) passes: the
 * purchase result then carries none either.
 */
async function reportProblem(deps: McpDeps, itemId: string): Promise<string | undefined> {
  let problem: string | undefined;
  try {
    const report = await deps.catalog.attestation(itemId);
    problem = await publishedScanReportProblem(deps.catalog, report, { itemId });
  } catch (err) {
    if (err instanceof MarketplaceError && err.status === 404) return undefined;
    // a brief outage (503 with retry_after) says when to call again
    const after = err instanceof MarketplaceError ? bodyOf(err).retry_after : undefined;
    return `could not read this listing's signed scan report or the marketplace's attestation addresses (${err instanceof Error ? err.message.slice(0, 200) : String(err)}); ${after ? `call again after ${after} seconds` : 'try again later'}.`;
  }
  return (
    problem &&
    `the marketplace's signed scan report of this listing does not hold: ${problem}. Do not buy it; report it to the operator.`
  );
}
