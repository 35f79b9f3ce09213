import { BoundedCache } from '../../bounded-cache.js';
import { Pieces } from '../../db/pieces.js';
import {
  agentById,
  agentProvisioning,
  knownAgent,
  type PayoutAddressing,
} from '../accounts/accounts.js';
import type { Fulfilment } from '../payments/fulfilment.js';
import { legalAudit, orderPlacement, type AcquireContext } from './orders.js';

/**
 * ONE purchase is ONE statement (spec 3.5, 4.1), read top to bottom, each piece from its owner:
 *
 *   pre              the item is still sold on these terms          payments/completion.ts
 *   ledger_gate      the authorization's nonce, used once           payments/completion.ts
 *   ledger_transfer  the money moves (local facilitator's ledger)   x402/ledger-sql.ts
 *   paid             the payment this statement completes           payments/completion.ts
 *   agent            the buyer: provisioned, remembered or keyed    accounts/accounts.ts
 *   placed           the order                                      orders/orders.ts
 *   audited          the legal acceptance audit row                 orders/orders.ts
 *   done             the payment recorded `completed`               payments/completion.ts
 *
 * With a facilitator elsewhere the same pieces from `paid` on complete the payment the stepwise
 * path claimed (`paid` is then the locked open row, and `done` updates it). This file owns the
 * purchase's part: `agent`, `placed`, `audited` and the result every retry is answered with.
 *
 * A buyer whose purchase committed before is remembered, and its next purchase reads its agent
 * instead of carrying the provisioning writes (which cost a statement their set-up even when they
 * write nothing). The memory only picks the statement's shape, never its outcome: an entry is
 * taken when used and put back when that purchase commits, and a remembered buyer whose wallet no
 * longer names an agent makes the order's buyer null, which aborts the statement whole; the
 * processor then takes its stepwise path, whose fulfilment (the entry gone) provisions as usual.
 */
export function purchaseFulfilment(
  payoutAddressing: PayoutAddressing,
  maxKnownBuyers = 10_000,
): Fulfilment<AcquireContext> {
  let addressing: PayoutAddressing | undefined;
  const knownBuyers = new Set<string>();
  return (sql, ctx) => {
    const c = ctx.context;
    const payer = ctx.payer.toLowerCase();
    const known = !c.buyerId && knownBuyers.delete(payer);
    addressing ??= remembered(payoutAddressing);
    const buyer = c.buyerId
      ? agentById(sql, c.buyerId)
      : known
        ? knownAgent(sql, payer)
        : agentProvisioning(sql, ctx.payer, addressing);
    const pieces = Pieces.given('paid')
      .then(buyer)
      .then(orderPlacement(sql, ctx, known), '\n      ')
      .then(legalAudit(sql, ctx));
    const result = sql`jsonb_build_object('orderId', ${c.orderId}::text, 'buyer',
      (select jsonb_build_object('created', created, 'username', username) from agent limit 1))`;
    const committed = () => {
      if (c.buyerId) return;
      if (knownBuyers.size >= maxKnownBuyers) knownBuyers.clear();
      knownBuyers.add(payer);
    };
    return { pieces, result, committed };
  };
}

/**
 * The buyer's payout addresses ride along with every purchase (they are written only when the
 * purchase creates the account), and deriving them costs two Keccak hashes per chain: a repeat
 * buyer's are remembered (they depend on nothing but the address and the chain).
 */
function remembered(addressing: PayoutAddressing): PayoutAddressing {
  const known = new BoundedCache<string, string>(4096);
  return {
    ...addressing,
    addressOf: (seller, chain) =>
      known.get(`${chain}:${seller}`, () => addressing.addressOf(seller, chain)),
  };
}
