import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CatalogClient } from '../../src/client/catalog.js';
import { ChainSchema, chainOfNetwork } from '../../src/wire/chains.js';
import { promptPriceUsdc } from '../tools/paying.js';
import { apiFailure, success } from '../tools/results.js';

/**
 * The hosted quote_item: the purchase prompt read as a quote (price, chains with exact amounts
 * and recipients, legal versions). Nothing is signed; the limits are the agent's own wallet's
 * business, so there are none here (the local server's quote adds its spending limits).
 */
export function registerHostedQuote(
  server: McpServer,
  deps: { baseUrl: string; catalog: Pick<CatalogClient, 'quote' | 'getItem'> },
): void {
  server.registerTool(
    'quote_item',
    {
      title: 'Quote a purchase',
      description:
        "Reads a listing's purchase prompt as a quote: price in USDC, payable chains with exact amounts, recipients and assets, " +
        'and the legal terms a purchase accepts. Use it before acquire_item to show the user what they would pay. Free: nothing is ' +
        'signed and nothing moves.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
        chain: ChainSchema.optional().describe('Preferred chain, "base" or "polygon"'),
      },
      outputSchema: z.looseObject({
        item_id: z.string(),
        price_usdc: z.number(),
        currency: z.literal('USDC'),
        chains: z.array(
          z.object({
            chain: z.string(),
            network: z.string(),
            amount_raw: z.string(),
            asset: z.string(),
            pay_to: z.string(),
          }),
        ),
        valid_for_seconds: z.number(),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id, chain }) => {
      try {
        const [prompt, item] = await Promise.all([
          deps.catalog.quote(item_id, chain),
          deps.catalog.getItem(item_id).catch(() => undefined),
        ]);
        const info = prompt.extensions?.bazaar?.info;
        return success({
          item_id,
          ...(item?.metadata.title && { title: item.metadata.title }),
          ...(item?.metadata.seller_username && {
            seller_username: item.metadata.seller_username,
          }),
          price_usdc: promptPriceUsdc(prompt),
          currency: 'USDC',
          chains: prompt.accepts.map((a) => ({
            chain: chainOfNetwork(a.network) ?? a.network,
            network: a.network,
            amount_raw: a.amount,
            asset: a.asset,
            pay_to: a.payTo,
          })),
          ...(info?.legal && { legal: info.legal }),
          valid_for_seconds: Math.max(...prompt.accepts.map((a) => a.maxTimeoutSeconds)),
        });
      } catch (err) {
        return apiFailure(err, 'quote_item', deps.baseUrl);
      }
    },
  );
}
