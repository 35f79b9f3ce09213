/**
 * The hosted MCP server's tool names, apart from the server (./server.ts) so that the discovery
 * documents can name them without loading the MCP SDK: a service that is never called on
 * `POST /mcp` does not hold the SDK's modules (about 5 MB of heap).
 */

/**
 * The hosted tools, as discovery documents name them (the e2e test pins them to `tools/list`):
 * `paid` ones charge a price (the item's, the listing fee), `identity` ones take a zero-value proof
 * or a sign-in-with-x proof, `free` ones nothing (get_listing_status: the owner's view of a listing
 * not yet live takes an identity proof).
 */
export const HOSTED_MCP_TOOLS = {
  free: ['search_items', 'get_item', 'preview_item', 'quote_item', 'get_listing_status'],
  paid: ['acquire_item', 'list_item'],
  identity: ['get_order', 'list_my_orders', 'list_my_items', 'get_username', 'get_sales_chains'],
} as const;

/**
 * A Revision A marketplace's hosted tools: only those that need no API key. Its listing and account
 * routes take the key (X-API-KEY), which a hosted server holding nothing cannot send; the public
 * acquire is paid with x402 as in Revision B. Selling and account tools: the local MCP server
 * (it registers the wallet through SIWE and keeps the key) or the REST routes.
 */
export const HOSTED_MCP_TOOLS_A = {
  free: HOSTED_MCP_TOOLS.free,
  paid: ['acquire_item'],
  identity: [],
} as const;

/** The hosted tools of a contract revision (the server's `tools/list` and the discovery documents). */
export const hostedMcpTools = (revision: 'A' | 'B') =>
  revision === 'A' ? HOSTED_MCP_TOOLS_A : HOSTED_MCP_TOOLS;
