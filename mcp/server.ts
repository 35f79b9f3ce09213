import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpDeps } from './deps.js';
import type { Tracing } from '../src/telemetry/tracing.js';
import { registerPrompts } from './prompts.js';
import { registerItemTemplate, registerResources } from './resources.js';
import { registerAckFeedback } from './tools/ack-feedback.js';
import { registerAcquireItem } from './tools/acquire-item.js';
import { registerConfirmPurchase } from './tools/confirm-purchase.js';
import { registerDeleteItem } from './tools/delete-item.js';
import { registerGetItem } from './tools/get-item.js';
import { registerGetListingStatus } from './tools/get-listing-status.js';
import { registerGetOrder } from './tools/get-order.js';
import { registerOrderFiles } from './tools/order-files.js';
import { registerGetPayouts } from './tools/get-payouts.js';
import { registerGetSalesChains } from './tools/get-sales-chains.js';
import { registerGetSellerStats } from './tools/get-seller-stats.js';
import { registerGetUsername } from './tools/get-username.js';
import { listOutputsAdditive } from './tools/output-schemas.js';
import { registerListItem } from './tools/list-item.js';
import { registerListMyItems } from './tools/list-my-items.js';
import { registerListMyOrders } from './tools/list-my-orders.js';
import { registerPreviewItem } from './tools/preview-item.js';
import { registerQuoteItem } from './tools/quote-item.js';
import { registerReadInbox } from './tools/read-inbox.js';
import { registerSearchItems } from './tools/search-items.js';
import { registerSendPlatformFeedback } from './tools/send-platform-feedback.js';
import { registerSetSalesChains } from './tools/set-sales-chains.js';
import { registerSetUsername } from './tools/set-username.js';
import { registerSubmitFeedback } from './tools/submit-feedback.js';
import { refuseUnknownArguments, refuseUnknownPromptArguments } from './tools/strict-arguments.js';

export const SERVER_INFO = { name: 'artifact-marketplace', version: '0.2.0' } as const;

/** One MCP server over the marketplace's REST API. The caller picks and connects the transport. */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Code-artifact marketplace (zip/tar.gz archives paid in USDC over x402). Buying: search_items, get_item, ' +
      'preview_item (file tree, languages, licence, README excerpt), quote_item (price, chains, legal terms; nothing ' +
      'signed), acquire_item (pays, downloads, verifies the digest and the signed scan report, can unpack), ' +
      'get_order and list_my_orders. Selling: list_item (scans locally before paying the listing fee), ' +
      'get_listing_status, list_my_items, delete_item. Money: get_payouts, get_seller_stats. Feedback: submit_feedback, ' +
      'read_inbox, ack_feedback, send_platform_feedback. Account: get_username, set_username, get_sales_chains, ' +
      'set_sales_chains. Paying tools stay within the operator limits and never pay twice for one listing unless told to.',
  });
  listOutputsAdditive(server);
  refuseUnknownArguments(server);
  refuseUnknownPromptArguments(server);
  if (deps.tracing) traceToolCalls(server, deps.tracing);
  registerSearchItems(server, deps);
  registerGetItem(server, deps);
  registerPreviewItem(server, deps);
  registerQuoteItem(server, deps);
  registerAcquireItem(server, deps);
  if (deps.approvals) registerConfirmPurchase(server, deps.approvals);
  registerGetOrder(server, deps);
  registerOrderFiles(server, deps);
  registerListMyOrders(server, deps);
  registerListItem(server, deps);
  registerGetListingStatus(server, deps);
  registerListMyItems(server, deps);
  registerDeleteItem(server, deps);
  registerGetPayouts(server, deps);
  registerGetSellerStats(server, deps);
  registerSubmitFeedback(server, deps);
  registerReadInbox(server, deps);
  registerAckFeedback(server, deps);
  registerSendPlatformFeedback(server, deps);
  registerGetUsername(server, deps);
  registerSetUsername(server, deps);
  registerGetSalesChains(server, deps);
  registerSetSalesChains(server, deps);
  registerResources(server, deps);
  registerItemTemplate(server, deps);
  registerPrompts(server);
  return server;
}

/**
 * Every tool registered from here on runs in a span `tools/call <name>`: the REST requests of the
 * call (global fetch, instrumented) are its children and carry its `traceparent` to the service.
 */
function traceToolCalls(server: McpServer, tracing: Pick<Tracing, 'span'>): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: string, config: unknown, cb: (...a: unknown[]) => unknown) =>
    register(name, config, (...args: unknown[]) =>
      tracing.span(`tools/call ${name}`, { 'mcp.tool.name': name }, async () => cb(...args)),
    )) as unknown as McpServer['registerTool'];
}
