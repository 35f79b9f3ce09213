import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { shownOrder, ShownOrderSchema } from '../state.js';
import { NO_WALLET } from './acquire-item.js';
import { apiFailure, failure, success } from './results.js';

export function registerListMyOrders(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'list_my_orders',
    {
      title: 'List my purchases',
      description:
        "Lists the purchases this MCP server's wallet made through it (kept in its local state file), newest first, with where each " +
        'archive was saved, and how much of the 24-hour spending budget is used. Use it to avoid buying something twice, to find ' +
        'a saved archive, or to follow up a purchase whose settlement was pending (then call get_order). Free: reads a local file, no network.',
      inputSchema: {
        item_id: z.uuid().optional().describe('Only the orders of this listing (a uuid)'),
      },
      outputSchema: z.object({
        orders: z.array(ShownOrderSchema),
        spent_last_24h_usdc: z.number(),
        daily_limit_usdc: z.number(),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id }) => {
      if (!deps.wallet) return failure(`list_my_orders failed: ${NO_WALLET}`);
      try {
        const { address } = await deps.wallet();
        const orders = (await deps.state.orders(address)).map(shownOrder);
        return success({
          orders: item_id ? orders.filter((o) => o.item_id === item_id) : orders,
          spent_last_24h_usdc: await deps.state.spentLast24h(address),
          daily_limit_usdc: deps.limits.daily,
        });
      } catch (err) {
        return apiFailure(err, 'list_my_orders', deps.baseUrl);
      }
    },
  );
}
