import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CatalogClient } from '../../src/client/catalog.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { readQuote } from '../tools/quote-item.js';
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
        return success(await readQuote(deps.catalog, item_id, chain));
      } catch (err) {
        return apiFailure(err, 'quote_item', deps.baseUrl);
      }
    },
  );
}
