import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { z } from 'zod';
import { SalesChainsResponseSchema, UsernameResponseSchema } from '../../src/wire/accounts.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { currentLegal } from '../../src/wire/legal.js';
import { OrderLinksSchema } from '../../src/wire/orders.js';
import { apiFailure, success, type Hints } from '../tools/results.js';
import { paidCall, paymentOf, PAYMENT_RESPONSE_META, type HostedDeps } from './paid-call.js';

/** How a hosted paid or identity tool is paid: the same words in every description. */
const PAYS_WITH_META =
  "This hosted server holds no wallet: called without payment it answers the x402 MCP transport's PaymentRequired " +
  '(isError, structuredContent { x402Version, accepts, resource }); sign one of accepts with your own wallet and call again ' +
  'with the same arguments and the PaymentPayload in params._meta["x402/payment"]; the receipt comes back in ' +
  '_meta["x402/payment-response"].';

const NO_ACCOUNT =
  'This wallet has no account here yet: an account is created by its first purchase (acquire_item). Nothing was changed.';

const COMMON: Hints = { agent_not_found: NO_ACCOUNT };

/** Purchase result of the hosted acquire_item: the order and its links, never the archive bytes. */
export const HostedAcquireResultSchema = z.looseObject({
  order_id: z.uuid(),
  item_id: z.uuid(),
  download_url: OrderLinksSchema.shape.download_url,
  invoice_url: OrderLinksSchema.shape.invoice_url.optional(),
  expires_in: OrderLinksSchema.shape.expires_in,
});

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * The x402 `bazaar` extension of a paid hosted tool, as an MCP tool (`info.input.type: "mcp"`):
 * a catalogue that settles the payment (the facilitator reads the payload's extensions) lists the
 * tool of this endpoint, not the REST route the payment is forwarded to.
 */
function mcpToolDiscovery(
  toolName: string,
  config: { description: string; inputSchema: z.ZodRawShape; outputSchema: z.ZodObject },
  example: Record<string, unknown>,
): Record<string, unknown> {
  const { $schema: _in, ...inputSchema } = z.toJSONSchema(z.object(config.inputSchema), {
    io: 'input',
  });
  const { $schema: _out, ...outputSchema } = z.toJSONSchema(config.outputSchema, {
    io: 'output',
    unrepresentable: 'any',
  });
  return declareDiscoveryExtension({
    toolName,
    description: config.description,
    transport: 'streamable-http',
    inputSchema,
    example,
    output: { schema: outputSchema },
  });
}

/**
 * One hosted tool over one REST route, paid or proved by the client in `_meta`: the answer is the
 * route's body (plus `extra`), its receipt in `_meta["x402/payment-response"]`.
 */
function registerPaidTool<S extends z.ZodRawShape>(
  server: McpServer,
  deps: HostedDeps,
  name: string,
  config: {
    title: string;
    description: string;
    inputSchema: S;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
    /** A paid tool's example arguments: its PaymentRequired then carries a bazaar `mcp` entry. */
    discoveryExample?: Record<string, unknown>;
  },
  route: (args: z.infer<z.ZodObject<S>>) => { method: string; path: string; body?: unknown },
  hints: Hints = {},
  extra: (args: z.infer<z.ZodObject<S>>) => Record<string, unknown> = () => ({}),
): void {
  const { discoveryExample, ...toolConfig } = config;
  const extensions = discoveryExample && mcpToolDiscovery(name, config, discoveryExample);
  server.registerTool(
    name,
    { ...toolConfig, description: `${config.description} ${PAYS_WITH_META}` },
    (async (args: z.infer<z.ZodObject<S>>, ctx: { _meta?: Record<string, unknown> }) => {
      const { method, path, body } = route(args);
      try {
        const answer = await paidCall(
          deps,
          path,
          { method, body },
          paymentOf(ctx._meta),
          z.record(z.string(), z.unknown()),
          extensions,
        );
        if (answer.kind === 'payment_required') return answer.result;
        const result: CallToolResult = success({ ...answer.body, ...extra(args) });
        if (answer.receipt) result._meta = { [PAYMENT_RESPONSE_META]: answer.receipt };
        return result;
      } catch (err) {
        return apiFailure(err, name, deps.baseUrl, { ...COMMON, ...hints });
      }
    }) as never,
  );
}

export function registerHostedTools(server: McpServer, deps: HostedDeps): void {
  const legal = currentLegal(deps.baseUrl);
  registerPaidTool(
    server,
    deps,
    'acquire_item',
    {
      title: 'Buy listing',
      description:
        "Buys one listing with the caller's own wallet (USDC over x402) and returns the order with short-lived download and invoice " +
        'links (bearer credentials: do not share them); nothing is stored on this server. Use it once the user has chosen an item ' +
        'and agreed to its price (get_item shows it; the unpaid call shows the exact amounts per chain and signs nothing). ' +
        `Buying accepts the marketplace policy (${legal.policy.url}) and the buyer license (${legal.license.url}). ` +
        'Sending the same signed payment again returns the same order and charges nothing more.',
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
      title: 'Get my sales chains',
      description:
        'Reads the chains the wallet accepts payment on for its listings. Free: a zero-value identity proof, never settled.',
      inputSchema: {},
      outputSchema: SalesChainsResponseSchema,
      annotations: readOnly,
    },
    () => ({ method: 'GET', path: '/api/v1/agent/sales-chains' }),
  );
}
