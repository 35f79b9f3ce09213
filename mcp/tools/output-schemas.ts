import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * A JSON Schema open to new fields: every `additionalProperties: false` (and
 * `unevaluatedProperties: false`) dropped, at every depth; properties, `required`, types and
 * bounds stay as they are.
 */
export function openJsonSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((s: unknown) => openJsonSchema(s)) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const open: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'additionalProperties' || key === 'unevaluatedProperties') && value === false)
      continue;
    open[key] = openJsonSchema(value);
  }
  return open as T;
}

/**
 * A tool's output schema as a client reads it: zod turns an object schema into
 * `additionalProperties: false` (io "output"), so a field the REST response gains later (the
 * service only adds fields) would fail the client's check of `structuredContent` against the
 * listed schema (the SDK client throws -32602). The listed JSON Schema is therefore `schema`'s own
 * with no object closed (zod merges a schema's metadata into its JSON Schema); the server still
 * checks a success against `schema`, which ignores unknown keys unless it says otherwise.
 */
export function additiveOutput(schema: z.ZodObject): z.ZodObject {
  return checkedAs(schema, schema);
}

/**
 * A result schema that checks a result against `checked` and is listed as `listed`'s JSON Schema
 * (zod merges a schema's metadata into its JSON Schema), open to new fields.
 */
export function checkedAs(checked: z.ZodObject, listed: z.ZodType): z.ZodObject {
  const { $schema: _, ...json } = z.toJSONSchema(listed, {
    io: 'output',
    target: 'draft-7',
    unrepresentable: 'any',
  });
  return z
    .looseObject({})
    .superRefine((value, ctx) => {
      const parsed = checked.safeParse(value);
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    })
    .meta(openJsonSchema(json));
}

/**
 * Every tool registered on `server` from here on lists its output schema open to new fields
 * (`additiveOutput`); input schemas stay as declared, so bad arguments are still refused.
 */
export function listOutputsAdditive(server: McpServer): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: string, config: { outputSchema?: unknown }, cb: unknown) => {
    const out = config.outputSchema;
    if (out === undefined) return register(name, config, cb);
    // a zod object, or the raw shape of one (the SDK takes either)
    const schema = out instanceof z.ZodObject ? out : z.object(out as z.ZodRawShape);
    return register(name, { ...config, outputSchema: additiveOutput(schema) }, cb);
  }) as unknown as McpServer['registerTool'];
}
