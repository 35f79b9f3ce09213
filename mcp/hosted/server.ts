import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { registerItemTemplate, registerResources } from '../resources.js';
import { SERVER_INFO } from '../server.js';
import { registerGetItem } from '../tools/get-item.js';
import { registerSearchItems } from '../tools/search-items.js';
import type { HostedDeps } from './paid-call.js';
import { registerHostedQuote } from './quote.js';
import { registerHostedTools } from './tools.js';

/**
 * The hosted tools, as discovery documents name them (the e2e test pins them to `tools/list`):
 * `paid` ones charge the item's price, `identity` ones take a zero-value proof, `free` ones nothing.
 */
export const HOSTED_MCP_TOOLS = {
  free: ['search_items', 'get_item', 'quote_item'],
  paid: ['acquire_item'],
  identity: ['get_order', 'get_username', 'get_sales_chains'],
} as const;

/**
 * The hosted MCP server (`POST /mcp` on the marketplace, src/http/routes/mcp.ts): the catalogue
 * tools as the local server has them, and paid and account tools that hold no wallet: the agent
 * pays or proves its wallet with the x402 MCP transport (`_meta["x402/payment"]`), forwarded to
 * the REST route as its `PAYMENT-SIGNATURE`. No file is written; purchases return links.
 */
export function createHostedMcpServer(deps: HostedDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Code-artifact marketplace (zip/tar.gz archives paid in USDC over x402), hosted: this server has no wallet, you pay with yours. ' +
      'Buying: search_items, get_item, quote_item (free), acquire_item (unpaid: answers the x402 PaymentRequired; paid in _meta["x402/payment"]: ' +
      'returns the order with download links), get_order for fresh links. Account: get_username, get_sales_chains (zero-value proof in _meta).',
  });
  const catalogDeps = {
    baseUrl: deps.baseUrl,
    catalog: new CatalogClient({ baseUrl: deps.baseUrl, fetch: deps.fetch }),
  };
  registerSearchItems(server, catalogDeps);
  registerGetItem(server, catalogDeps);
  registerHostedQuote(server, catalogDeps);
  registerHostedTools(server, deps);
  registerResources(server, { baseUrl: deps.baseUrl, fetch: deps.fetch });
  registerItemTemplate(server, catalogDeps);
  return server;
}
