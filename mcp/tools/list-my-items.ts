import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ItemStatusSchema, SellerItemsSchema } from '../../src/wire/listings.js';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { PageArgs } from './paging.js';
import { apiFailure, failure, success } from './results.js';

export function registerListMyItems(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'list_my_items',
    {
      title: 'List my listings',
      description:
        "Lists this wallet's listings in every state (pending_scan, scanning, active, rejected, deleted), newest first, with title, " +
        'stack, price, status_reason and dates. Use it to see what is for sale or why a listing was refused. Free: a zero-value ' +
        'identity signature, never settled. Returns { items, pagination: { limit, offset, total }, allowed_statuses }.',
      inputSchema: {
        status: ItemStatusSchema.optional().describe(
          'Only this state: pending_scan, scanning, active, rejected or deleted',
        ),
        ...PageArgs,
      },
      outputSchema: SellerItemsSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (query) => {
      if (!deps.wallet) return failure(`list_my_items failed: ${NO_WALLET}`);
      try {
        return success(await (await deps.wallet()).sellerItems(query));
      } catch (err) {
        return apiFailure(err, 'list_my_items', deps.baseUrl, {
          agent_not_found:
            'This wallet has never listed or bought anything here, so it has no listings. List something with list_item first.',
        });
      }
    },
  );
}
