import type { McpServer, RegisteredPrompt } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors.js';

/**
 * The code a tool's unknown argument is refused with: the code its REST route answers for an
 * unknown body key (`bodyObject` in src/wire/input.ts), `invalid_request` unless the feature has
 * its own.
 */
const UNKNOWN_ARGUMENT_CODE: Readonly<Record<string, ErrorCode>> = {
  submit_feedback: 'unknown_feedback_key',
  send_platform_feedback: 'unknown_feedback_key',
  // its arguments other than the archive are the listing's metadata
  list_item: 'unknown_metadata_key',
};

/**
 * A tool's arguments as an object that takes its own keys and no others. The SDK turns a raw shape
 * into `z.object`, which drops a key it does not name: `submit_feedback` with a misspelt `reveiw`
 * would record the rating alone, and feedback is one per item and buyer. Refused instead, before
 * the tool runs (so before any payment prompt, signature or REST call), naming the key in the
 * words the REST route uses and listing the arguments the tool takes. Protocol fields (`_meta`,
 * where the x402 payment travels) are `params`' own, never arguments, so nothing real clients send
 * is refused.
 */
export function strictArguments(name: string, shape: z.ZodRawShape): z.ZodObject {
  const unknownKey = UNKNOWN_ARGUMENT_CODE[name] ?? 'invalid_request';
  const takes = Object.keys(shape);
  const accepted = takes.length
    ? `${name} takes ${takes.join(', ')}`
    : `${name} takes no arguments`;
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${unknownKey}: ${ERROR_CATALOG[unknownKey][1]} (${issue.keys.join(', ')}). ` +
          `${accepted}; nothing was done. Correct the name and call again.`
        : undefined,
  });
}

/**
 * Every tool registered on `server` from here on refuses an argument its input schema does not
 * name (`strictArguments`); the listed JSON Schema says so (`additionalProperties: false`).
 */
export function refuseUnknownArguments(server: McpServer): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: string, config: { inputSchema?: unknown }, cb: unknown) => {
    const shape = config.inputSchema;
    if (shape === undefined || shape instanceof z.ZodType) return register(name, config, cb);
    return register(
      name,
      { ...config, inputSchema: strictArguments(name, shape as z.ZodRawShape) },
      cb,
    );
  }) as unknown as McpServer['registerTool'];
}

/**
 * Every prompt registered on `server` from here on refuses an argument its schema does not name,
 * as the tools do: `find_and_buy` with `budget` for `budget_usdc` would otherwise write a request
 * with no spending bound. The SDK builds a prompt's schema from the raw shape with `z.object`
 * (which drops unknown keys) and reads it at each `prompts/get`, so the registered prompt's schema
 * is replaced by the strict one; the client gets JSON-RPC -32602 naming the key.
 */
export function refuseUnknownPromptArguments(server: McpServer): void {
  const register = server.registerPrompt.bind(server) as (...args: unknown[]) => RegisteredPrompt;
  server.registerPrompt = ((name: string, config: { argsSchema?: z.ZodRawShape }, cb: unknown) => {
    const registered = register(name, config, cb);
    if (config.argsSchema) registered.argsSchema = strictArguments(name, config.argsSchema);
    return registered;
  }) as unknown as McpServer['registerPrompt'];
}
