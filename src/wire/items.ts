import { z } from 'zod';
import { code } from '../errors.js';
import { ChainSchema } from './chains.js';
import { decimalParam, hasControlCharacters } from './input.js';
import { PreviewSummarySchema } from './previews.js';

/**
 * Wire schemas of discovery (spec 2.1, 4.1, 8): zod only, shared by the routes (validation and
 * the OpenAPI document / manifest), the typed client (which parses responses with them) and the
 * MCP tools (inputs, outputs, limits).
 */
export const SEARCH_LIMITS = { q: 1000, techStack: 200, maxPrice: 1_000_000, results: 20 } as const;

export const ItemMetadataSchema = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  prompt_summary: z.string().optional(),
  tech_stack: z.string().optional(),
  prices: z.object({ USDC: z.number() }).optional(),
  seller_username: z.string().optional(),
});

/** The buyer-facing item; search entries add `similarity`. */
export const PublicItemSchema = z.object({
  id: z.uuid(),
  status: z.string(),
  metadata: ItemMetadataSchema,
  available_chains: z.array(ChainSchema),
  rating_avg: z.number().min(0).max(10).optional(),
  rating_count: z.number().int().optional(),
  preview: PreviewSummarySchema.optional(),
});
export type PublicItem = z.infer<typeof PublicItemSchema>;

export const SearchResultSchema = PublicItemSchema.extend({ similarity: z.number().min(0).max(5) });
export type SearchResult = z.infer<typeof SearchResultSchema>;

export const SearchResultsSchema = z.array(SearchResultSchema).max(SEARCH_LIMITS.results);

/** `GET /api/v1/items/{uuid}/status` (public). */
export const PublicStatusSchema = z.object({
  id: z.uuid(),
  status: z.string(),
  reason: z.string(),
  created_at: z.string(),
});
export type PublicStatus = z.infer<typeof PublicStatusSchema>;

export const ItemParamsSchema = z.object({ uuid: z.uuid(code('invalid_item_id')) });

/**
 * Search parameters. Each issue message is the catalog code answered with 400. Unknown
 * parameters are ignored (there is no caller-controlled limit).
 */
export const SearchQuerySchema = z
  .object({
    q: z
      // absent: missing; anything else that is not one string (q given twice): invalid
      .string({ error: (issue) => (issue.input === undefined ? 'missing_query' : 'invalid_query') })
      .trim()
      .min(1, code('missing_query'))
      .max(SEARCH_LIMITS.q, code('query_too_long'))
      .refine((s) => !hasControlCharacters(s), code('invalid_query'))
      .describe('Natural-language query, 1..1000 characters, no control characters'),
    tech_stack: z
      .string(code('invalid_tech_stack'))
      .trim()
      .max(SEARCH_LIMITS.techStack, code('tech_stack_too_long'))
      .refine((s) => !hasControlCharacters(s), code('invalid_tech_stack'))
      .optional()
      .describe(
        'Case-insensitive filter; comma-separated terms must all appear in the listing stack as whole stack names (java is not JavaScript, c is not C++; node matches Node.js)',
      ),
    license: z
      .string(code('invalid_license'))
      .trim()
      .regex(/^[A-Za-z0-9.+-]{1,100}$/, code('invalid_license'))
      .optional()
      .describe(
        "Case-insensitive SPDX id the archive's detected licence must be (or offer as one OR alternative), e.g. MIT; listings without a preview never match",
      ),
    min_price: decimalParam('invalid_price')
      .pipe(z.number().max(SEARCH_LIMITS.maxPrice, code('invalid_price')))
      .optional()
      .describe('Minimum USDC price, a plain decimal (e.g. 2.5), 0..1000000'),
    max_price: decimalParam('invalid_price')
      .pipe(z.number().max(SEARCH_LIMITS.maxPrice, code('invalid_price')))
      .optional()
      .describe('Maximum USDC price, a plain decimal (e.g. 2.5), 0..1000000'),
  })
  .refine(
    (q) => q.min_price === undefined || q.max_price === undefined || q.min_price <= q.max_price,
    { ...code('invalid_price_range'), path: ['min_price'] },
  );
export type SearchQuery = z.infer<typeof SearchQuerySchema>;
