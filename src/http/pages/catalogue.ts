import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { newestListings } from '../../domain/items/catalogue.js';
import { getPublicItem } from '../../domain/items/public-item.js';
import { searchItems } from '../../domain/search/search.js';
import { AppError, isErrorCode } from '../../errors.js';
import { ItemParamsSchema, SearchQuerySchema } from '../../wire/items.js';
import { sendPage } from './views.js';

/** The catalogue form's fields as typed (each optional; empty means unset). */
const CatalogueForm = z.object({
  q: z.string().optional(),
  tech_stack: z.string().optional(),
  min_price: z.string().optional(),
  max_price: z.string().optional(),
});

/**
 * The public face for people (issue 26): `GET /` asked for HTML shows the catalogue: the search
 * with the API's own query rules (SearchQuerySchema: a bad filter is explained on the page, not
 * answered with a 500), or the newest listings when nothing was searched.
 */
export async function sendCatalogue(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  /** The face's rule (Revision A shows only listings payable somewhere). */
  payableOnly: boolean,
): Promise<FastifyReply> {
  const { sql, embedder, config } = deps;
  const form = CatalogueForm.safeParse(request.query);
  const raw = Object.fromEntries(
    Object.entries(form.success ? form.data : {}).filter(
      ([, v]) => v !== undefined && v.trim() !== '',
    ),
  ) as z.infer<typeof CatalogueForm>;
  const opts = {
    efSearch: config.SEARCH_EF_SEARCH,
    ratingThreshold: config.RATING_VISIBILITY_THRESHOLD,
    payableOnly,
  };
  let problem: string | undefined;
  let results: Awaited<ReturnType<typeof newestListings>> = [];
  let heading = 'Newest listings';
  const parsed = SearchQuerySchema.safeParse({ q: raw.q ?? 'x', ...raw });
  if (!parsed.success) {
    const code = parsed.error.issues[0]?.message;
    problem = new AppError(code && isErrorCode(code) ? code : 'invalid_query').message;
  } else if (raw.q) {
    results = await searchItems(sql, embedder, parsed.data, opts);
    heading = `Results for “${parsed.data.q}”`;
  } else {
    results = await newestListings(
      sql,
      {
        techStack: parsed.data.tech_stack,
        minPrice: parsed.data.min_price,
        maxPrice: parsed.data.max_price,
      },
      { ratingThreshold: config.RATING_VISIBILITY_THRESHOLD },
    );
  }
  reply.header('Vary', 'Accept');
  return sendPage(reply, 'catalogue', {
    title: 'Catalogue',
    query: raw,
    results,
    heading,
    problem,
  });
}

/** An item's page: its details and how an agent buys it. */
export const cataloguePages: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { sql, config } = deps;
  const base = config.PUBLIC_BASE_URL;
  const mcpConfig = JSON.stringify(
    {
      mcpServers: {
        'artifact-marketplace': {
          command: 'node',
          args: ['/absolute/path/to/artifact-marketplace/dist/mcp/main.js'],
          env: {
            MARKETPLACE_URL: base,
            MCP_WALLET_PRIVATE_KEY: '0x…',
            MCP_MAX_PAYMENT_USDC: '5',
            MCP_DAILY_LIMIT_USDC: '20',
          },
        },
      },
    },
    null,
    2,
  );
  app.get(
    '/items/:uuid',
    { config: { auth: 'public' }, schema: { hide: true, params: ItemParamsSchema } },
    async (request, reply) => {
      const item = await getPublicItem(
        sql,
        request.params.uuid,
        config.RATING_VISIBILITY_THRESHOLD,
      );
      return sendPage(reply, 'item', {
        title: item.metadata.title,
        item,
        base,
        mcpConfig,
        revision: config.CONTRACT_REVISION,
      });
    },
  );
};
