import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CatalogClient, MarketplaceClient } from '../src/client/index.js';
import { registerAcquireItem } from './tools/acquire-item.js';
import { registerGetItem } from './tools/get-item.js';
import { registerGetOrder } from './tools/get-order.js';
import { registerSearchItems } from './tools/search-items.js';

/** What the tools need: REST clients, never the database or the domain's services. */
export interface McpDeps {
  /** The marketplace's public base URL (for links in descriptions and messages). */
  baseUrl: string;
  /** Public catalogue reads; no wallet involved. */
  catalog: Pick<CatalogClient, 'search' | 'getItem'>;
  /** The client that signs with the configured wallet; absent when no key is configured. */
  wallet: Pick<MarketplaceClient, 'address' | 'acquire' | 'getOrder'> | undefined;
  /** The operator's cap per purchase (MCP_MAX_PAYMENT_USDC); a tool call can only lower it. */
  maxPaymentUsdc: number;
}

export const SERVER_INFO = { name: 'artifact-marketplace', version: '0.1.0' } as const;

/** One MCP server over the marketplace's REST API. The caller picks and connects the transport. */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Code-artifact marketplace (zip/tar.gz archives paid in USDC). Find listings with search_items, ' +
      'inspect one with get_item, buy it with acquire_item (spends USDC from the configured wallet), ' +
      'and get fresh download links for an earlier purchase with get_order.',
  });
  registerSearchItems(server, deps);
  registerGetItem(server, deps);
  registerAcquireItem(server, deps);
  registerGetOrder(server, deps);
  return server;
}
