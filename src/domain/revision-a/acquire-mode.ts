import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  AcquireBodySchema,
  BuyBodySchema,
  BuyResponseSchema,
  PublicAcquireAResponseSchema,
} from '../../wire/orders.js';
import { SIGNED_IN_AGAIN, type AcquireMode } from '../orders/acquire-mode.js';

/**
 * Revision A's purchase (spec 4.2): the public acquire (`buyerId` absent; the payer gets a buyer
 * account it can later get a key for) or the keyed `POST /api/v1/buy` (`buyerId`: the key's agent).
 */
export function revisionAAcquire(buyerId?: string): AcquireMode {
  // The keyed `POST /api/v1/buy` names the item in the body; the public acquire in the path.
  const keyed = buyerId !== undefined;
  return {
    ...(buyerId !== undefined && { buyerId }),
    schemas: keyed
      ? { body: BuyBodySchema, response: BuyResponseSchema }
      : { body: AcquireBodySchema, response: PublicAcquireAResponseSchema },
    invoiceExample: () => ({}),
    buyerAccountExample: (base) =>
      keyed
        ? {}
        : {
            buyer_account: {
              created: true,
              username: 'brave-otter-042',
              rotate_key_url: `${base}/api/v1/auth/rotate-key`,
            },
          },
    completionTarget: (itemId, chain) => (keyed ? { item_id: itemId, chain } : { chain }),
    pathParams: (itemId) => (keyed ? {} : { pathParams: { uuid: itemId } }),
    promptRequired: keyed ? { required_fields: ['item_id'] } : {},
    // Revision A names the chain on completion (the keyed route the item first).
    completionRequired: keyed ? ['item_id', 'chain'] : ['chain'],
    // Revision A clients read the completion example without the `info` level.
    discoveryShape: (discovery) => ({ input: discovery.info.input, ...discovery }),
    freshLinks: SIGNED_IN_AGAIN(
      "GET /api/v1/orders/{order_id}/download with the buying account's x-api-key",
    ),
    // Revision A's live clients read the completion example under their catalog's name
    // (DISCOVERY_CATALOG_NAME); `bazaar` stays beside it for x402 discovery clients.
    // The catalog's copy is the `input` those clients read (the rest is bazaar's), so the prompt
    // header keeps every extension under its 8 KB.
    extensions: (discovery, config) => ({
      [config.DISCOVERY_CATALOG_NAME]: { input: (discovery as { input: unknown }).input },
      bazaar: discovery,
    }),
    // A signature for another chain than the one the completion names is refused.
    completionChain: (body) => body.chain,
    beforeVerify: (body, options) => {
      // The completion names its chain, and the seller must have a wallet there.
      if (body.chain === undefined) {
        throw new AppError('chain_required', {
          message: 'send chain (base or polygon) with the signed request',
        });
      }
      if (!options.some((o) => o.chain === body.chain)) {
        throw new AppError('seller_wallet_missing', {
          message: `the seller has no wallet linked on ${body.chain}; choose one of: ${options.map((o) => o.chain).join(', ')}`,
        });
      }
    },
    // A wallet names one account (its binding). A wallet linked to the seller's account is the
    // seller, whichever of its wallets is the listing's. A key names the buyer but not the payer:
    // another account's wallet (or a wallet of none) paying for the key's order would make a
    // signed authorization that reached someone else spend its owner's money on their order.
    payerCheck: async (sql, payer, sellerId) => {
      const owner = await walletOwner(sql, payer);
      if (owner === sellerId) {
        throw new AppError('self_purchase_forbidden', {
          message: 'this wallet is linked to the seller of this listing',
        });
      }
      if (keyed && owner !== buyerId) {
        throw new AppError('payer_not_linked', {
          message:
            'sign the payment with a wallet linked to your account (POST /api/v1/auth/link-wallet), or buy without a key through /api/v1/items/{id}/acquire',
        });
      }
    },
    response: (config, result, links) => {
      const { download_url, expires_in } = links;
      if (buyerId) return { order_id: result.orderId, download_url, expires_in };
      return {
        order_id: result.orderId,
        download_url,
        expires_in,
        buyer_account: {
          created: result.buyer?.created ?? false,
          username: result.buyer?.username ?? '',
          rotate_key_url: `${config.PUBLIC_BASE_URL}/api/v1/auth/rotate-key`,
        },
      };
    },
  };
}

/** The agent a wallet is bound to (linked, registered, or a smart account's controller). */
async function walletOwner(sql: Db, wallet: string): Promise<string | undefined> {
  const [row] = await sql<Array<{ agentId: string }>>`
    select agent_id from wallet_bindings where address = ${wallet.toLowerCase()}`;
  return row?.agentId;
}
