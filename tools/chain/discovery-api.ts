/**
 * The facilitator discovery API (x402 bazaar: `GET /discovery/resources`, `GET /discovery/search`)
 * over the marketplace's catalogue (`npm run facilitator` reads it at `PUBLIC_BASE_URL`): a client such
 * as `withBazaar(new HTTPFacilitatorClient({ url }))` browses the listings as paid resources.
 * The catalogue is read through the marketplace's public API, as any indexer would:
 * `/.well-known/x402` for the resources, `/api/v1/search` for a query, and each resource's own
 * 402 prompt (POST without payment) for its `accepts`, metadata and extensions. Prompts are kept
 * a minute.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

const PROMPT_TTL_MS = 60_000;
const MAX_LIMIT = 100;

interface DiscoveryItem {
  resource: string;
  type: 'http';
  x402Version: number;
  accepts: unknown[];
  lastUpdated: string;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  extensions?: Record<string, unknown>;
}

const PromptSchema = z
  .object({
    x402Version: z.number(),
    accepts: z.array(z.looseObject({ scheme: z.string(), network: z.string(), payTo: z.string() })),
    resource: z.looseObject({
      url: z.string(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
      serviceName: z.string().optional(),
      tags: z.array(z.string()).optional(),
      iconUrl: z.string().optional(),
    }),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

const ListQuery = z.object({
  type: z.string().optional(),
  payTo: z.string().optional(),
  scheme: z.string().optional(),
  network: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
const SearchQuery = ListQuery.omit({ offset: true }).extend({
  query: z.string().min(1).max(1000),
  cursor: z.string().regex(/^\d+$/).optional(),
});

export function registerDiscoveryApi(app: FastifyInstance, marketplaceUrl: string): void {
  const base = marketplaceUrl.replace(/\/+$/, '');
  const prompts = new Map<string, { item: DiscoveryItem | undefined; until: number }>();

  /** The resource as its own 402 prompt describes it (undefined when it prompts no payment). */
  async function itemOf(url: string): Promise<DiscoveryItem | undefined> {
    const known = prompts.get(url);
    if (known && known.until > Date.now()) return known.item;
    const res = await fetch(url, { method: 'POST' });
    const body: unknown = res.status === 402 ? await res.json() : undefined;
    if (res.status !== 402) await res.body?.cancel();
    const parsed = PromptSchema.safeParse(body);
    const item: DiscoveryItem | undefined = parsed.success
      ? {
          resource: parsed.data.resource.url,
          type: 'http',
          x402Version: parsed.data.x402Version,
          accepts: parsed.data.accepts,
          lastUpdated: new Date().toISOString(),
          ...(parsed.data.resource.description && {
            description: parsed.data.resource.description,
          }),
          ...(parsed.data.resource.mimeType && { mimeType: parsed.data.resource.mimeType }),
          ...(parsed.data.resource.serviceName && {
            serviceName: parsed.data.resource.serviceName,
          }),
          ...(parsed.data.resource.tags && { tags: parsed.data.resource.tags }),
          ...(parsed.data.resource.iconUrl && { iconUrl: parsed.data.resource.iconUrl }),
          ...(parsed.data.extensions && { extensions: parsed.data.extensions }),
        }
      : undefined;
    if (prompts.size > 10_000) prompts.clear();
    prompts.set(url, { item, until: Date.now() + PROMPT_TTL_MS });
    return item;
  }

  const matches = (item: DiscoveryItem, q: z.infer<typeof ListQuery>) =>
    (q.type === undefined || q.type === item.type) &&
    item.accepts.some((a) => {
      const r = a as { scheme: string; network: string; payTo: string };
      return (
        (q.scheme === undefined || r.scheme === q.scheme) &&
        (q.network === undefined || r.network === q.network) &&
        (q.payTo === undefined || r.payTo.toLowerCase() === q.payTo.toLowerCase())
      );
    });

  async function itemsOf(urls: string[], q: z.infer<typeof ListQuery>) {
    const items = await Promise.all(urls.map(itemOf));
    return items.filter((i): i is DiscoveryItem => i !== undefined && matches(i, q));
  }

  const invalid = { error: 'invalid_request', message: 'invalid discovery query' };

  app.get('/discovery/resources', async (req, reply) => {
    const q = ListQuery.safeParse(req.query);
    if (!q.success) return reply.code(400).send(invalid);
    const wk = (await fetch(`${base}/.well-known/x402`).then((r) => r.json())) as {
      resources: string[];
    };
    // filters need each prompt: read them all (the document is capped), then page
    const items = await itemsOf(wk.resources, q.data);
    return {
      x402Version: 2,
      items: items.slice(q.data.offset, q.data.offset + q.data.limit),
      pagination: { limit: q.data.limit, offset: q.data.offset, total: items.length },
    };
  });

  app.get('/discovery/search', async (req, reply) => {
    const q = SearchQuery.safeParse(req.query);
    if (!q.success) return reply.code(400).send(invalid);
    const offset = Number(q.data.cursor ?? 0);
    const search = new URL(`${base}/api/v1/search`);
    search.searchParams.set('q', q.data.query);
    const res = await fetch(search);
    if (!res.ok) return reply.code(res.status === 400 ? 400 : 502).send(invalid);
    const found = (await res.json()) as Array<{ id: string }>;
    const urls = found.map((r) => `${base}/api/v1/items/${r.id}/acquire`);
    const items = await itemsOf(urls, { ...q.data, offset });
    const page = items.slice(offset, offset + q.data.limit);
    const next = offset + q.data.limit;
    return {
      x402Version: 2,
      resources: page,
      pagination: { limit: q.data.limit, cursor: next < items.length ? String(next) : null },
    };
  });
}
