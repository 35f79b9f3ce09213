import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SellerStatsSchema } from '../../src/wire/payouts.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerGetSellerStats(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'get_seller_stats',
    {
      title: 'Get my seller stats',
      description:
        "Reads this wallet's selling figures: listings by status, completed sales with revenue (gross and the seller's share) and " +
        'the ten latest sales (item, amount, chain, time). Use it when the user asks how the listings sell. Free: a zero-value ' +
        'identity signature, never settled. Returns { wallet_address, items, revenue, recent_sales }.',
      inputSchema: {},
      outputSchema: SellerStatsSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (wallet) => wallet.sellerStats(),
  );
}
