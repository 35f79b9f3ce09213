import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SalesChainsResponseSchema } from '../../src/wire/accounts.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerGetSalesChains(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'get_sales_chains',
    {
      title: 'Get my sales chains',
      description:
        "Reads the chains (base, polygon) on which this wallet's listings can be bought; buyers see only these in available_chains. " +
        'On a Revision A (API-key) marketplace these are the chains where the account has a linked wallet. ' +
        'Free: a zero-value identity signature (or the API key), never settled. Returns { sales_chains }.',
      inputSchema: {},
      outputSchema: SalesChainsResponseSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (wallet) => wallet.getSalesChains(),
  );
}
