import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type {
  ShapeOutput,
  ZodRawShapeCompat,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { MarketplaceClient } from '../../src/client/index.js';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { apiFailure, failure, success, type Hints } from './results.js';

/** Said by every account-scoped tool when the wallet never bought or listed (spec 5.2 rule 5). */
export const NO_ACCOUNT =
  'This wallet has no account here yet: an account is created by its first purchase (acquire_item) or listing (list_item). Nothing was changed.';

/**
 * A tool that acts as the configured wallet through zero-value identity signatures (free, never
 * settled): the wallet check, the call and the failure rendering are the same for all of them;
 * each tool file gives its schemas, what it does, and its own hints.
 */
export function registerWalletTool<S extends ZodRawShapeCompat>(
  server: McpServer,
  deps: McpDeps,
  name: string,
  config: {
    title: string;
    description: string;
    inputSchema: S;
    outputSchema: z.ZodObject;
    annotations: ToolAnnotations;
  },
  run: (wallet: MarketplaceClient, args: ShapeOutput<S>) => Promise<Record<string, unknown>>,
  hints: Hints = {},
): void {
  const cb = async (args: ShapeOutput<S>) => {
    if (!deps.wallet) return failure(`${name} failed: ${NO_WALLET}`);
    try {
      return success(await run(await deps.wallet(), args));
    } catch (err) {
      return apiFailure(err, name, deps.baseUrl, { agent_not_found: NO_ACCOUNT, ...hints });
    }
  };
  // ToolCallback<S> is a conditional type TypeScript cannot resolve for a generic S
  server.registerTool(name, config, cb as unknown as ToolCallback<S>);
}
