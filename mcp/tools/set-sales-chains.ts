import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SalesChainsResponseSchema } from '../../src/wire/accounts.js';
import { CHAINS, ChainSchema } from '../../src/wire/chains.js';
import type { McpDeps } from '../deps.js';
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
        'buyer prompts and available_chains). Reversible: call again with the full list. On a Revision A (API-key) marketplace, ' +
        'where sales follow linked wallets, it links this wallet (a signed SIWE message) on each listed chain that has none; ' +
        'Revision A cannot unlink, so a list that leaves out a linked chain is refused and nothing changes. ' +
        'Free: a zero-value identity signature (or the API key and a SIWE signature), never settled. Returns { sales_chains }.',
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
    {
      invalid_sales_chains: 'Send a non-empty list of distinct chains: "base" and/or "polygon".',
      not_in_this_revision:
        'Call again with a list that keeps every chain get_sales_chains reports (you may add chains).',
      wallet_already_linked:
        'This wallet is bound to another account on this marketplace, so it cannot be linked here. Nothing was changed.',
    },
  );
}
