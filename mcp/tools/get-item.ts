import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { PublicItemSchema } from '../../src/wire/items.js';
import type { McpDeps } from '../deps.js';
import { apiFailure, success } from './results.js';

export function registerGetItem(
  server: McpServer,
  deps: Pick<McpDeps, 'baseUrl' | 'catalog'>,
): void {
  server.registerTool(
    'get_item',
    {
      title: 'Get listing',
      description:
        'Reads one active listing by id. Use it to check the current price and payable chains before acquire_item. ' +
        'Free: no wallet, no payment. Returns the item: id, status, metadata (title, description, prompt_summary, ' +
        'tech_stack, prices.USDC, seller_username), available_chains and, once rated 5+ times, rating_avg and rating_count.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
      },
      outputSchema: PublicItemSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id }) => {
      try {
        return success(await deps.catalog.getItem(item_id));
      } catch (err) {
        return apiFailure(err, 'get_item', deps.baseUrl);
      }
    },
  );
}
