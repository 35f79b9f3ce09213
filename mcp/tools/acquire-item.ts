import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ChainSchema } from '../../src/domain/chains.js';
import { currentLegal } from '../../src/domain/legal/legal.js';
import { AcquireResponseSchema } from '../../src/domain/orders/schemas.js';
import type { McpDeps } from '../server.js';
import { apiFailure, failure, success, type ErrorBody } from './results.js';

export const NO_WALLET =
  'This MCP server has no wallet. The operator must set MCP_WALLET_PRIVATE_KEY (a 0x-prefixed hex private key ' +
  'of a wallet holding USDC on base or polygon) and restart the server. Nothing was signed or charged.';

export function registerAcquireItem(server: McpServer, deps: McpDeps): void {
  const legal = currentLegal(deps.baseUrl);
  const cap = deps.limits.perPurchase;
  server.registerTool(
    'acquire_item',
    {
      title: 'Buy listing',
      description:
        'Buys one listing and returns its download link. Use it once the user has chosen an item and agreed to its price (check it with get_item). ' +
        `Costs the item's price (metadata.prices.USDC) in USDC, paid from this server's wallet through x402; this server pays at most ${cap} USDC per purchase. ` +
        'Not idempotent: every call is a new purchase, so to fetch links again for something already bought use get_order. ' +
        `Buying accepts the marketplace policy (${legal.policy.url}) and the buyer license (${legal.license.url}). ` +
        'Returns { order_id, download_url, invoice_url, expires_in }; the URLs are short-lived bearer credentials: do not share them.',
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
      },
      outputSchema: AcquireResponseSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async ({ item_id, chain, max_price_usdc }) => {
      if (!deps.wallet) return failure(`acquire_item failed: ${NO_WALLET}`);
      try {
        const wallet = await deps.wallet();
        const { order } = await wallet.acquire(item_id, {
          ...(chain && { chain }),
          maxPriceUsdc: Math.min(max_price_usdc, cap),
        });
        return success({ ...order });
      } catch (err) {
        return apiFailure(err, 'acquire_item', deps.baseUrl, {
          price_above_limit: (b: ErrorBody) =>
            (b.price_usdc ?? 0) > cap
              ? `The price is ${b.price_usdc} USDC, above this server's cap of ${cap} USDC per purchase (MCP_MAX_PAYMENT_USDC). Nothing was signed; only the operator can raise the cap.`
              : `The price is ${b.price_usdc} USDC, above max_price_usdc ${max_price_usdc}. Nothing was signed. If the user agrees to pay ${b.price_usdc} USDC, call again with max_price_usdc >= ${b.price_usdc}.`,
          self_purchase_forbidden:
            "The configured wallet is this listing's seller; a seller cannot buy its own listing.",
        });
      }
    },
  );
}
