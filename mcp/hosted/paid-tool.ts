import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { z } from 'zod';
import { apiFailure, success, type Hints } from '../tools/results.js';
import {
  orPaymentRequired,
  paidCall,
  proofOf,
  PAYMENT_RESPONSE_META,
  type HostedDeps,
} from './paid-call.js';

/** How a hosted paid tool is paid: the same words in every description. */
export const PAYS_WITH_META =
  "This hosted server holds no wallet: called without payment it answers the x402 MCP transport's PaymentRequired " +
  '(isError, structuredContent { x402Version, accepts, resource }); sign one of accepts with your own wallet and call again ' +
  'with the same arguments and the PaymentPayload in params._meta["x402/payment"]; the receipt comes back in ' +
  '_meta["x402/payment-response"].';

/** How a hosted identity tool is proved: either proof, each single use. */
export const PROVES_WITH_META =
  "This hosted server holds no wallet: called without proof it answers the x402 MCP transport's PaymentRequired " +
  '(isError, structuredContent { x402Version, accepts (amount 0), resource, extensions["sign-in-with-x"] }); call again with ' +
  'the same arguments and EITHER a zero-value PaymentPayload signed for one of accepts in params._meta["x402/payment"] ' +
  '(never settled) OR a sign-in-with-x proof answering extensions["sign-in-with-x"] in params._meta["sign-in-with-x"] ' +
  '(the SIGN-IN-WITH-X header value: base64 of the signed payload JSON). A proof is good for one call.';

export const NO_ACCOUNT =
  'This wallet has no account here yet: an account is created by its first purchase (acquire_item) or listing (list_item). Nothing was changed.';

export const COMMON: Hints = { agent_not_found: NO_ACCOUNT };

export const readOnly: ToolAnnotations = {
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
export function mcpToolDiscovery(
  toolName: string,
  config: { description: string; inputSchema: z.ZodRawShape; outputSchema: z.ZodObject },
  example: Record<string, unknown>,
): Record<string, unknown> {
  // closed, as the tool lists it (strict-arguments.ts)
  const { $schema: _in, ...inputSchema } = z.toJSONSchema(z.strictObject(config.inputSchema), {
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
export function registerPaidTool<S extends z.ZodRawShape>(
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
  // a tool the deployment's revision cannot serve is not listed at all (server.ts)
  if (deps.offered && !deps.offered.includes(name)) return;
  const { discoveryExample, kind, ...toolConfig } = config;
  const extensions = discoveryExample && mcpToolDiscovery(name, config, discoveryExample);
  const how = kind === 'paid' ? PAYS_WITH_META : PROVES_WITH_META;
  const described = {
    ...toolConfig,
    description: `${config.description} ${how}`,
    outputSchema: orPaymentRequired(config.outputSchema),
  };
  server.registerTool(name, described, (async (
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
export function queryOf(q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
