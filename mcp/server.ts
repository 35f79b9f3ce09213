import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CatalogClient } from '../src/client/catalog.js';
import type { MarketplaceClient } from '../src/client/index.js';
import type { SpendingLimits } from './config.js';
import type { LocalState } from './state.js';
import { registerAcquireItem } from './tools/acquire-item.js';
import { registerGetItem } from './tools/get-item.js';
import { registerGetOrder } from './tools/get-order.js';
import { registerSearchItems } from './tools/search-items.js';

/** What the tools need: REST clients and local files, never the database or the domain's services. */
export interface McpDeps {
  /** The marketplace's public base URL (for links in descriptions and messages). */
  baseUrl: string;
  /** Public catalogue reads (and the unsigned purchase prompt); no wallet involved. */
  catalog: Pick<CatalogClient, 'search' | 'getItem' | 'quote'>;
  /**
   * The client that signs with the configured wallet, built on first use (viem and x402 load
   * then, so a client connects without waiting for them); absent when no key is configured.
   */
  wallet: (() => Promise<MarketplaceClient>) | undefined;
  /** The operator's spending limits; a tool call can only lower them. */
  limits: SpendingLimits;
  /** Orders bought here and the 24-hour spending ledger. */
  state: LocalState;
  /** Where acquire_item saves archives. */
  downloadDir: string;
}

export const SERVER_INFO = { name: 'artifact-marketplace', version: '0.2.0' } as const;

/** One MCP server over the marketplace's REST API. The caller picks and connects the transport. */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Code-artifact marketplace (zip/tar.gz archives paid in USDC over x402). Buying: search_items, get_item, ' +
      'quote_item (price, chains, legal terms; nothing signed), acquire_item (pays, downloads, verifies, can unpack), ' +
      'get_order and list_my_orders. Selling: list_item (scans locally before paying the listing fee), ' +
      'get_listing_status, list_my_items, delete_item. Money: get_payouts, get_seller_stats. Feedback: submit_feedback, ' +
      'read_inbox, ack_feedback, send_platform_feedback. Account: get_username, set_username, get_sales_chains, ' +
      'set_sales_chains. Paying tools stay within the operator limits and never pay twice for one listing unless told to.',
  });
  registerSearchItems(server, deps);
  registerGetItem(server, deps);
  registerAcquireItem(server, deps);
  registerGetOrder(server, deps);
  return server;
}
