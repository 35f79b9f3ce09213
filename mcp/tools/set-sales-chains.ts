import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SalesChainsResponseSchema } from '../../src/domain/accounts/schemas.js';
import { CHAINS, ChainSchema } from '../../src/domain/chains.js';
import type { McpDeps } from '../server.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerSetSalesChains(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'set_sales_chains',
    {
      title: 'Set my sales chains',
      description:
        "Chooses the chains on which this wallet's listings can be bought; chains left out are opted out at once (they vanish from " +
        'buyer prompts and available_chains). Reversible: call again with the full list. Free: a zero-value identity signature, ' +
        'never settled. Returns { sales_chains }.',
      inputSchema: {
        sales_chains: z
          .array(ChainSchema)
          .min(1)
          .max(CHAINS.length)
          .describe(`Non-empty list of distinct chains out of ${CHAINS.join(', ')}`),
      },
      outputSchema: SalesChainsResponseSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (wallet, { sales_chains }) => wallet.setSalesChains(sales_chains),
    { invalid_sales_chains: 'Send a non-empty list of distinct chains: "base" and/or "polygon".' },
  );
}
