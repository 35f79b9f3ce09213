import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SEARCH_LIMITS, SearchResultSchema } from '../../src/wire/items.js';
import type { McpDeps } from '../deps.js';
import { apiFailure, success } from './results.js';

const price = (which: string) =>
  z
    .number()
    .min(0)
    .max(SEARCH_LIMITS.maxPrice)
    .optional()
    .describe(`${which} price in USDC, 0..${SEARCH_LIMITS.maxPrice} (e.g. 2.5)`);

export function registerSearchItems(
  server: McpServer,
  deps: Pick<McpDeps, 'baseUrl' | 'catalog'>,
): void {
  server.registerTool(
    'search_items',
    {
      title: 'Search listings',
      description:
        'Searches the active code-artifact listings by meaning and keywords, optionally filtered by tech stack, price and licence. ' +
        'Use it first to find something to inspect (get_item, preview_item) or buy (acquire_item). Free: no wallet, no payment. ' +
        'Returns { items }: at most 20 listings ranked by relevance, each with id, metadata (title, description, ' +
        'tech_stack, prices.USDC, seller_username), available_chains, similarity (0-5) and, once rated 5+ times, ' +
        'rating_avg (0-10) and rating_count, and a preview summary (files, lines, top languages, licence) when the scan made one.',
      inputSchema: {
        q: z
          .string()
          .trim()
          .min(1)
          .max(1000)
          .describe(
            'What you need, in natural language, 1..1000 characters (e.g. "fastify rate limiting plugin")',
          ),
        tech_stack: z
          .string()
          .trim()
          .max(200)
          .optional()
          .describe(
            'Comma-separated technologies that must all appear in the listing stack, case-insensitive, max 200 characters (e.g. "typescript, react")',
          ),
        min_price: price('Lowest'),
        max_price: price('Highest'),
        license: z
          .string()
          .trim()
          .regex(/^[A-Za-z0-9.+-]{1,100}$/)
          .optional()
          .describe(
            'SPDX licence id the archive must carry (or offer as an OR alternative), case-insensitive (e.g. "MIT")',
          ),
      },
      outputSchema: z.object({ items: z.array(SearchResultSchema).max(20) }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (args) => {
      try {
        return success({ items: await deps.catalog.search(args) });
      } catch (err) {
        return apiFailure(err, 'search_items', deps.baseUrl, {
          invalid_price_range: 'min_price must not exceed max_price; swap or widen them.',
          invalid_query: 'q must not contain NUL or other control characters; remove them.',
        });
      }
    },
  );
}
