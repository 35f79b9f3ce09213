import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { registerItemTemplate, registerResources } from '../resources.js';
import { SERVER_INFO } from '../server.js';
import { registerGetItem } from '../tools/get-item.js';
import { listOutputsAdditive } from '../tools/output-schemas.js';
import { registerPreviewItem } from '../tools/preview-item.js';
import { registerSearchItems } from '../tools/search-items.js';
import { refuseUnknownArguments } from '../tools/strict-arguments.js';
import { registerHostedListingStatus } from './listing-status.js';
import type { HostedDeps } from './paid-call.js';
import { registerHostedQuote } from './quote.js';
import { registerHostedTools } from './tools.js';
import { hostedMcpTools } from './tool-names.js';

export { HOSTED_MCP_TOOLS, HOSTED_MCP_TOOLS_A, hostedMcpTools } from './tool-names.js';

const INSTRUCTIONS = {
  B:
    'Code-artifact marketplace (zip/tar.gz archives paid in USDC over x402), hosted: this server has no wallet, you pay with yours. ' +
    'Buying: search_items, get_item, preview_item, quote_item (free), acquire_item (unpaid: answers the x402 PaymentRequired; paid in ' +
    '_meta["x402/payment"]: returns the order with download links), get_order for fresh links. Selling: list_item (the archive in base64 ' +
    'in the call; the listing fee paid the same way), get_listing_status. Account: list_my_orders, list_my_items, get_username, ' +
    'get_sales_chains (a zero-value proof in _meta["x402/payment"] or a sign-in-with-x proof in _meta["sign-in-with-x"]).',
  A:
    'Code-artifact marketplace (zip/tar.gz archives paid in USDC over x402), hosted: this server has no wallet, you pay with yours. ' +
    'Buying: search_items, get_item, preview_item, quote_item (free), acquire_item with chain (unpaid: answers the x402 ' +
    'PaymentRequired; paid in _meta["x402/payment"]: returns the order with download links and the API key route of the account ' +
    'it opened). get_listing_status reads a live listing. This marketplace keeps accounts by API key (X-API-KEY, from SIWE ' +
    'registration), which a hosted server cannot hold: selling, order links and account tools are on its REST routes or its local ' +
    'MCP server.',
} as const;

/**
 * The hosted MCP server (`POST /mcp` on the marketplace, src/http/routes/mcp.ts): the catalogue
 * tools as the local server has them, and paid and account tools that hold no wallet: the agent
 * pays or proves its wallet with the x402 MCP transport (`_meta["x402/payment"]`), forwarded to
 * the REST route as its `PAYMENT-SIGNATURE` (or `_meta["sign-in-with-x"]` as its
 * `SIGN-IN-WITH-X`). No file is written; purchases return links, listings come in the call.
 */
export function createHostedMcpServer(
  deps: Omit<HostedDeps, 'offered'> & { revision: 'A' | 'B' },
): McpServer {
  const { revision, ...rest } = deps;
  const tools = hostedMcpTools(revision);
  const hosted: HostedDeps = { ...rest, offered: [...tools.paid, ...tools.identity] };
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS[revision] });
  listOutputsAdditive(server);
  refuseUnknownArguments(server);
  const catalogDeps = {
    baseUrl: deps.baseUrl,
    catalog: new CatalogClient({ baseUrl: deps.baseUrl, fetch: deps.fetch }),
  };
  registerSearchItems(server, catalogDeps);
  registerGetItem(server, catalogDeps);
  registerPreviewItem(server, catalogDeps);
  registerHostedQuote(server, catalogDeps);
  registerHostedListingStatus(server, hosted);
  registerHostedTools(server, hosted);
  registerResources(server, { baseUrl: deps.baseUrl, fetch: deps.fetch });
  registerItemTemplate(server, catalogDeps);
  return server;
}
