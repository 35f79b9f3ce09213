import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AcquireResponseSchema } from '../../src/wire/orders.js';
import type { McpDeps } from '../deps.js';
import type { LocalOrder } from '../state.js';
import { NO_WALLET } from './acquire-item.js';
import { apiFailure, failure, success } from './results.js';

export function registerGetOrder(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'get_order',
    {
      title: 'Get order links',
      description:
        "Gets fresh download and invoice links for an order this server's wallet bought, e.g. when the links from acquire_item expired, " +
        'or checks a purchase whose settlement was pending (it answers once the payment is confirmed). ' +
        'Free: the wallet proves ownership with a zero-value x402 signature that is never settled; no funds move. ' +
        'Returns { order_id, download_url, invoice_url, expires_in }; the URLs are short-lived bearer credentials: do not share them.',
      inputSchema: {
        order_id: z.uuid().describe('Order id (a uuid), as returned by acquire_item'),
      },
      outputSchema: AcquireResponseSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ order_id }) => {
      if (!deps.wallet) return failure(`get_order failed: ${NO_WALLET}`);
      let local: LocalOrder | undefined;
      try {
        const wallet = await deps.wallet();
        local = (await deps.state.orders(wallet.address)).find((o) => o.order_id === order_id);
        const links = await wallet.getOrder(order_id);
        // a purchase whose settlement was pending is now complete
        if (local?.status === 'settlement_pending')
          await deps.state.recordOrder({ ...local, status: 'completed' });
        return success({ order_id, ...links });
      } catch (err) {
        return apiFailure(err, 'get_order', deps.baseUrl, {
          order_not_found:
            local?.status === 'settlement_pending'
              ? `This purchase's settlement is still pending, so the order is not complete (yet). To learn how it ended, call acquire_item { item_id: "${local.item_id}" } ` +
                'with the same arguments: it re-sends the same signed payment (it cannot charge twice) and answers the order, still pending, or released with nothing charged.'
              : "No completed order with this id belongs to this server's wallet. Use an order_id returned by acquire_item.",
        });
      }
    },
  );
}
