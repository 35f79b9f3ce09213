import { createHash } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { z } from 'zod';
import { SalesChainsResponseSchema, UsernameResponseSchema } from '../../src/wire/accounts.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { currentLegal } from '../../src/wire/legal.js';
import {
  ItemStatusSchema,
  SellerItemsSchema,
  UploadMetadataSchema,
  UploadResponseSchema,
} from '../../src/wire/listings.js';
import { BuyerOrdersSchema, OrderLinksSchema } from '../../src/wire/orders.js';
import { apiFailure, success, type Hints } from '../tools/results.js';
import {
  MarketplaceError,
  paidCall,
  proofOf,
  PAYMENT_RESPONSE_META,
  type HostedDeps,
} from './paid-call.js';

/** How a hosted paid tool is paid: the same words in every description. */
const PAYS_WITH_META =
  "This hosted server holds no wallet: called without payment it answers the x402 MCP transport's PaymentRequired " +
  '(isError, structuredContent { x402Version, accepts, resource }); sign one of accepts with your own wallet and call again ' +
  'with the same arguments and the PaymentPayload in params._meta["x402/payment"]; the receipt comes back in ' +
  '_meta["x402/payment-response"].';

/** How a hosted identity tool is proved: either proof, each single use. */
const PROVES_WITH_META =
  "This hosted server holds no wallet: called without proof it answers the x402 MCP transport's PaymentRequired " +
  '(isError, structuredContent { x402Version, accepts (amount 0), resource, extensions["sign-in-with-x"] }); call again with ' +
  'the same arguments and EITHER a zero-value PaymentPayload signed for one of accepts in params._meta["x402/payment"] ' +
  '(never settled) OR a sign-in-with-x proof answering extensions["sign-in-with-x"] in params._meta["sign-in-with-x"] ' +
  '(the SIGN-IN-WITH-X header value: base64 of the signed payload JSON). A proof is good for one call.';

const NO_ACCOUNT =
  'This wallet has no account here yet: an account is created by its first purchase (acquire_item) or listing (list_item). Nothing was changed.';

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

/** One REST call a hosted tool makes; a JSON body, or a multipart form built in memory. */
interface RestCall {
  method: string;
  path: string;
  body?: unknown;
  /** Added to the tool's answer on success. */
  extra?: Record<string, unknown>;
}

/**
 * One hosted tool over one REST route, paid (`paid`) or proved (`identity`) by the client in
 * `_meta`: the answer is the route's body (plus `extra`), its receipt in
 * `_meta["x402/payment-response"]`. `route` may refuse the arguments itself (a `MarketplaceError`
 * with the service's code) before anything is sent.
 */
function registerPaidTool<S extends z.ZodRawShape>(
  server: McpServer,
  deps: HostedDeps,
  name: string,
  config: {
    kind: 'paid' | 'identity';
    title: string;
    description: string;
    inputSchema: S;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
    /** A paid tool's example arguments: its PaymentRequired then carries a bazaar `mcp` entry. */
    discoveryExample?: Record<string, unknown>;
  },
  route: (args: z.infer<z.ZodObject<S>>) => RestCall | Promise<RestCall>,
  hints: Hints = {},
  extra: (args: z.infer<z.ZodObject<S>>) => Record<string, unknown> = () => ({}),
): void {
  const { discoveryExample, kind, ...toolConfig } = config;
  const extensions = discoveryExample && mcpToolDiscovery(name, config, discoveryExample);
  const how = kind === 'paid' ? PAYS_WITH_META : PROVES_WITH_META;
  server.registerTool(name, { ...toolConfig, description: `${config.description} ${how}` }, (async (
    args: z.infer<z.ZodObject<S>>,
    ctx: { _meta?: Record<string, unknown> },
  ) => {
    try {
      const { method, path, body, extra: known } = await route(args);
      const answer = await paidCall(
        deps,
        path,
        { method, body },
        proofOf(ctx._meta),
        z.record(z.string(), z.unknown()),
        extensions,
      );
      if (answer.kind === 'payment_required') return answer.result;
      const result: CallToolResult = success({ ...answer.body, ...extra(args), ...known });
      if (answer.receipt) result._meta = { [PAYMENT_RESPONSE_META]: answer.receipt };
      return result;
    } catch (err) {
      return apiFailure(err, name, deps.baseUrl, { ...COMMON, ...hints });
    }
  }) as never);
}

/** A query string of the defined values, with its `?`, or ''. */
function queryOf(q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The archive of a hosted list_item, decoded in memory: its size is judged from the base64 length
 * BEFORE anything is decoded (413 `payload_too_large`, as the REST upload answers), then the
 * alphabet (400 `invalid_file`). Nothing is written anywhere.
 */
export function decodeArchive(base64: string, maxBytes: number): Buffer {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  if (Math.ceil(base64.length / 4) * 3 - padding > maxBytes) {
    const message = `the archive exceeds ${maxBytes} bytes`;
    throw new MarketplaceError(413, 'payload_too_large', {
      error: 'payload_too_large',
      message,
    });
  }
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    const message = 'archive_base64 is not valid base64 (standard alphabet, padded, no spaces)';
    throw new MarketplaceError(400, 'invalid_file', { error: 'invalid_file', message });
  }
  return Buffer.from(base64, 'base64');
}

const meta = UploadMetadataSchema.shape;

/** Result of the hosted list_item: the REST upload's answer and what the archive was. */
export const HostedListResultSchema = UploadResponseSchema.extend({
  sha256: z.string().describe('SHA-256 of the archive listed (the fee is bound to it)'),
  bytes: z.number(),
  next: z.string(),
});

/**
 * The hosted list_item: the archive comes IN the call (base64), is decoded in memory and sent to
 * the REST upload as a multipart form built in memory; the REST route validates it, prompts the
 * listing fee (bound to this archive and metadata) and lists it once per fee authorization.
 */
function registerHostedListItem(server: McpServer, deps: HostedDeps): void {
  const max = deps.maxArchiveBytes;
  registerPaidTool(
    server,
    deps,
    'list_item',
    {
      kind: 'paid',
      title: 'List an archive for sale',
      description:
        'Lists code for sale: the archive (.zip or .tar.gz, at most ' +
        `${max} bytes) travels in the call as base64 with its file name and the listing's details. The marketplace ` +
        'validates it first (metadata, name, archive structure, duplicates: refused before any fee), then asks the listing ' +
        'fee (0.01 USDC on the default deployment), bound to this archive and these details: the same signed fee lists ' +
        'nothing else, and sent again returns the same listing without a second fee. The marketplace then scans it; follow ' +
        'with get_listing_status (wait_seconds) until it is active. Returns { item_id, status: "pending_scan", invoice_url, ' +
        'sha256, bytes, next }. Run `npx artifact-marketplace-scan <archive>` locally first to see what the scan refuses.',
      inputSchema: {
        archive_base64: z
          .string()
          .min(1)
          .describe(
            `The archive's bytes in standard base64 (padded, no spaces); at most ${max} bytes decoded`,
          ),
        filename: z
          .string()
          .min(1)
          .max(255)
          .describe('Plain file name ending in .zip, .tar.gz or .tgz; it names the compression'),
        title: meta.title,
        description: meta.description,
        prompt_summary: meta.prompt_summary,
        tech_stack: meta.tech_stack,
        price_usdc: z
          .number()
          .positive()
          .describe(
            'Sale price in USDC, at most 6 decimals, within the deployment range (default 0.1..100)',
          ),
      },
      outputSchema: HostedListResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      discoveryExample: {
        archive_base64: 'UEsDBBQAAAAIAA...',
        filename: 'project.zip',
        title: 'Rate limiter middleware',
        description: 'Token-bucket rate limiting for Express',
        tech_stack: 'typescript, express, redis',
        price_usdc: 4.5,
      },
    },
    (args) => {
      const bytes = decodeArchive(args.archive_base64, max);
      const form = new FormData();
      form.set(
        'metadata',
        JSON.stringify({
          title: args.title,
          description: args.description,
          ...(args.prompt_summary !== undefined && { prompt_summary: args.prompt_summary }),
          tech_stack: args.tech_stack,
          prices: { USDC: args.price_usdc },
        }),
      );
      form.set('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), args.filename);
      return {
        method: 'POST',
        path: '/api/v1/items',
        body: form,
        extra: {
          sha256: createHash('sha256').update(bytes).digest('hex'),
          bytes: bytes.length,
          next: 'The marketplace is scanning it: call get_listing_status with this item_id and wait_seconds: 30 until it is active.',
        },
      };
    },
    {
      duplicate_code:
        'This exact archive is already listed (by you or someone else); nothing was paid. Change the code or find the listing with list_my_items.',
      code_previously_rejected:
        "The marketplace's scan rejected these exact bytes before; they can never be listed. Nothing was paid.",
      listing_limit_reached:
        'This seller has the most listings allowed; delete some first. Nothing was paid.',
      payload_too_large: `The archive is larger than this marketplace accepts (${max} bytes); nothing was sent or paid. List a smaller archive.`,
      authorization_already_used:
        'That signed fee was already used to list a different archive or different details; nothing was stored or charged by this call. Sign a fresh fee from the unpaid answer.',
    },
  );
}

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
        'Sending the same signed payment again returns the same order and charges nothing more. Already bought it with this ' +
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
        limit: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe('Page size, 1..100 (default 100)'),
        offset: z.number().int().min(0).optional().describe('Rows to skip, >= 0 (default 0)'),
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
        limit: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe('Page size, 1..100 (default 100)'),
        offset: z.number().int().min(0).optional().describe('Rows to skip, >= 0 (default 0)'),
      },
      outputSchema: BuyerOrdersSchema,
      annotations: readOnly,
    },
    (q) => ({ method: 'GET', path: `/api/v1/orders${queryOf(q)}` }),
  );
}
