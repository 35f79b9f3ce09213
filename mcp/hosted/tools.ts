import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SalesChainsResponseSchema, UsernameResponseSchema } from '../../src/wire/accounts.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { currentLegal } from '../../src/wire/legal.js';
import { ItemStatusSchema, SellerItemsSchema } from '../../src/wire/listings.js';
import { BuyerOrdersSchema, OrderLinksSchema } from '../../src/wire/orders.js';
import { PageArgs } from '../tools/paging.js';
import { registerHostedListItem } from './list-item.js';
import type { HostedDeps } from './paid-call.js';
import { queryOf, readOnly, registerPaidTool } from './paid-tool.js';

/** Purchase result of the hosted acquire_item: the order and its links, never the archive bytes. */
export const HostedAcquireResultSchema = z.looseObject({
  order_id: z.uuid(),
  item_id: z.uuid(),
  download_url: OrderLinksSchema.shape.download_url,
  invoice_url: OrderLinksSchema.shape.invoice_url.optional(),
  expires_in: OrderLinksSchema.shape.expires_in,
});

export function registerHostedTools(server: McpServer, deps: HostedDeps): void {
  const legal = currentLegal(deps.baseUrl);
  registerPaidTool(
    server,
    deps,
    'acquire_item',
    {
      kind: 'paid',
      title: 'Buy listing',
      description:
        "Buys one listing with the caller's own wallet (USDC over x402) and returns the order with short-lived download and invoice " +
        'links (bearer credentials: do not share them); nothing is stored on this server. Use it once the user has chosen an item ' +
        'and agreed to its price (get_item shows it; the unpaid call shows the exact amounts per chain and signs nothing). ' +
        `Buying accepts the marketplace policy (${legal.policy.url}) and the buyer license (${legal.license.url}). ` +
        'Sending the same signed payment again charges nothing more; it returns the order with links only when the payment carries ' +
        'a payment-identifier id (extensions["payment-identifier"].info.id, reused on the retry), else the order_id. Already bought it with this ' +
        'wallet? Answer the unpaid answer\'s extensions["sign-in-with-x"] challenge in params._meta["sign-in-with-x"] instead of ' +
        'paying: the same order with fresh links, free.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
        chain: ChainSchema.optional().describe(
          'Chain to pay on, "base" or "polygon"; omit to be offered every chain the seller accepts',
        ),
        accept_terms: z
          .literal(true)
          .describe(
            `Must be true: the user accepts the policy ${legal.policy.url} and the buyer license ${legal.license.url}`,
          ),
      },
      outputSchema: HostedAcquireResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      discoveryExample: { item_id: '00000000-0000-4000-8000-000000000000', accept_terms: true },
    },
    ({ item_id, chain }) => ({
      method: 'POST',
      path: `/api/v1/items/${item_id}/acquire`,
      body: { ...(chain && { chain }), policy_accepted: true, license_accepted: true },
    }),
    {
      self_purchase_forbidden:
        "The paying wallet is this listing's seller; a seller cannot buy its own listing.",
    },
    ({ item_id }) => ({ item_id }),
  );
  registerPaidTool(
    server,
    deps,
    'get_order',
    {
      kind: 'identity',
      title: 'Get order links',
      description:
        'Gets fresh download and invoice links for an order the paying wallet bought, e.g. when the links from acquire_item expired. ' +
        'Free: the wallet proves ownership with a zero-value x402 payment that is never settled; no funds move.',
      inputSchema: {
        order_id: z.uuid().describe('Order id (a uuid), as returned by acquire_item'),
      },
      outputSchema: OrderLinksSchema.extend({ order_id: z.uuid() }),
      annotations: readOnly,
    },
    ({ order_id }) => ({ method: 'GET', path: `/api/v1/orders/${order_id}` }),
    {},
    ({ order_id }) => ({ order_id }),
  );
  registerPaidTool(
    server,
    deps,
    'get_username',
    {
      kind: 'identity',
      title: 'Get my username',
      description:
        "Reads the wallet's public username (shown next to its listings as seller_username). Free: a zero-value identity proof, never settled.",
      inputSchema: {},
      outputSchema: UsernameResponseSchema,
      annotations: readOnly,
    },
    () => ({ method: 'GET', path: '/api/v1/agent/username' }),
  );
  registerPaidTool(
    server,
    deps,
    'get_sales_chains',
    {
      kind: 'identity',
      title: 'Get my sales chains',
      description:
        'Reads the chains the wallet accepts payment on for its listings. Free: a zero-value identity proof, never settled.',
      inputSchema: {},
      outputSchema: SalesChainsResponseSchema,
      annotations: readOnly,
    },
    () => ({ method: 'GET', path: '/api/v1/agent/sales-chains' }),
  );
  registerHostedListItem(server, deps);
  registerPaidTool(
    server,
    deps,
    'list_my_items',
    {
      kind: 'identity',
      title: 'List my listings',
      description:
        "Lists the proving wallet's listings in every state (pending_scan, scanning, active, rejected, deleted), newest first, " +
        'with title, stack, price, status_reason and dates. Use it to see what is for sale or why a listing was refused. ' +
        'Free: an identity proof, never settled. Returns { items, pagination: { limit, offset, total }, allowed_statuses }.',
      inputSchema: {
        status: ItemStatusSchema.optional().describe(
          'Only this state: pending_scan, scanning, active, rejected or deleted',
        ),
        ...PageArgs,
      },
      outputSchema: SellerItemsSchema,
      annotations: readOnly,
    },
    (q) => ({ method: 'GET', path: `/api/v1/seller/items${queryOf(q)}` }),
  );
  registerPaidTool(
    server,
    deps,
    'list_my_orders',
    {
      kind: 'identity',
      title: 'List my purchases',
      description:
        "Lists the proving wallet's completed purchases, newest first: order_id, item_id, title, price_usdc, chain, network, " +
        'transaction, completed_at. Use it to avoid buying something twice or to find an order_id for get_order (fresh links). ' +
        'Free: an identity proof, never settled. Returns { orders, pagination: { limit, offset, total } }.',
      inputSchema: {
        item_id: z.uuid().optional().describe('Only the orders of this listing (a uuid)'),
        ...PageArgs,
      },
      outputSchema: BuyerOrdersSchema,
      annotations: readOnly,
    },
    (q) => ({ method: 'GET', path: `/api/v1/orders${queryOf(q)}` }),
  );
}
