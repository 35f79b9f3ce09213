/**
 * The `/api/v1/skills` manifest is a projection of the OpenAPI document, which itself is generated
 * from the zod schemas every route validates with: the three cannot disagree.
 */
type Json = Record<string, unknown>;

export interface ManifestEndpoint {
  method: string;
  path: string;
  auth: string;
  summary?: string;
  price_usdc?: string;
  parameters: Array<{
    name: string;
    in: string;
    required: boolean;
    description?: string;
    schema: unknown;
  }>;
  request_body?: { content_type: string; schema: unknown }[];
  responses: Record<string, unknown>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function endpointsFromOpenApi(doc: Json): ManifestEndpoint[] {
  const out: ManifestEndpoint[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, ops] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = ops[method];
      if (!op) continue;
      const params = ((op.parameters ?? []) as Json[]).map((p) => ({
        name: String(p.name),
        in: String(p.in),
        required: Boolean(p.required),
        ...(p.description ? { description: String(p.description) } : {}),
        schema: p.schema,
      }));
      const body = op.requestBody as { content?: Record<string, { schema: unknown }> } | undefined;
      const responses = Object.fromEntries(
        Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, r]) => {
          const content = r.content as Record<string, { schema: unknown }> | undefined;
          const first = content ? Object.values(content)[0] : undefined;
          return [status, first?.schema ?? { description: r.description }];
        }),
      );
      out.push({
        method: method.toUpperCase(),
        path,
        auth: String(op['x-auth'] ?? 'public'),
        ...(op.summary ? { summary: String(op.summary) } : {}),
        ...(op['x-price-usdc'] ? { price_usdc: String(op['x-price-usdc']) } : {}),
        parameters: params,
        ...(body?.content && {
          request_body: Object.entries(body.content).map(([ct, c]) => ({
            content_type: ct,
            schema: c.schema,
          })),
        }),
        responses,
      });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
