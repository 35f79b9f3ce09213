import { z } from 'zod';

/**
 * What catalogues read of a paid route (x402 `bazaar` extension and the prompt's `resource`
 * metadata, docs/discovery-and-siwx.md): tags from a listing's stack, and the JSON Schema 2020-12
 * that describes a body route's input and output beside its examples.
 */

const MAX_TAGS = 5;
const MAX_TAG_CHARS = 32;

/**
 * Catalogue tags of a listing: the entries of its comma-separated `tech_stack`, trimmed, in order,
 * without repeats (case-insensitive); an entry longer than 32 characters or not printable ASCII is
 * left out (catalogues drop it anyway); at most 5.
 */
export function catalogueTags(techStack: string): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const raw of techStack.split(',')) {
    const tag = raw.trim();
    if (!/^[\x20-\x7e]+$/.test(tag) || tag.length > MAX_TAG_CHARS) continue;
    if (seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(tag);
    if (tags.length === MAX_TAGS) break;
  }
  return tags;
}

/**
 * The JSON Schema of a wire schema, as a request (`input`) or an answer (`output`) reads, kept
 * small for the prompt's header (8 KB with every extension): no descriptions (the OpenAPI document
 * has them), a `format` stands without the pattern zod spells it out with, and an object nested
 * deeper than two properties below the top (the scan report's typed data) is named, not spelled out.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return lean(rest) as Record<string, unknown>;
}

/** Objects this many `properties` below the top keep their shape; deeper ones are `{type: object}`. */
const SPELLED_DEPTH = 2;

function lean(node: unknown, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n, depth));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  const o = node as Record<string, unknown>;
  if (depth > SPELLED_DEPTH && o.type === 'object') return { type: 'object' };
  for (const [key, value] of Object.entries(o)) {
    if (key === 'description' || (key === 'pattern' && 'format' in o)) continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([k, v]) => [
              k,
              lean(v, depth + 1),
            ]),
          )
        : lean(value, depth);
  }
  return out;
}

const computed = { input: new WeakMap(), output: new WeakMap() } as const;
/** jsonSchemaOf, computed once per wire schema (prompts are written often). */
function cached(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const map = computed[io] as WeakMap<z.ZodType, Record<string, unknown>>;
  let found = map.get(schema);
  if (!found) map.set(schema, (found = jsonSchemaOf(schema, io)));
  return found;
}

/**
 * The `schema` of a body route's bazaar entry (the shape @x402/extensions' declareDiscoveryExtension
 * writes): `info.input` is an http call with this method, body type and body; `info.output` a JSON
 * answer whose example follows `response`.
 */
export function bodyDiscoverySchema(opts: {
  method: 'POST' | 'PUT' | 'PATCH';
  bodyType: 'json' | 'form-data';
  body: z.ZodType;
  response: z.ZodType;
  pathParams?: string[];
}) {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema' as const,
    type: 'object' as const,
    properties: {
      input: {
        type: 'object' as const,
        properties: {
          type: { type: 'string', const: 'http' },
          method: { type: 'string', enum: [opts.method] },
          bodyType: { type: 'string', enum: [opts.bodyType] },
          body: cached(opts.body, 'input'),
          ...(opts.pathParams && {
            pathParams: {
              type: 'object',
              properties: Object.fromEntries(
                opts.pathParams.map((p) => [p, { type: 'string', format: 'uuid' }]),
              ),
              required: opts.pathParams,
            },
          }),
        },
        required: ['type', 'method', 'bodyType', 'body'],
      },
      output: {
        type: 'object' as const,
        properties: { type: { type: 'string' }, example: cached(opts.response, 'output') },
        required: ['type'],
      },
    },
    required: ['input'] as ['input'],
  };
}
