import { z } from 'zod';
import { code } from '../errors.js';
import { hasControlCharacters, pageQuery } from './input.js';
import { UsdcPriceSchema } from './money.js';

/**
 * Wire schemas of selling (spec 2.2, 3.1, 4.3, 8): zod only, shared by the routes, the OpenAPI
 * document and manifest, the typed client and the MCP tools.
 */
export const ITEM_STATUSES = ['pending_scan', 'scanning', 'active', 'rejected', 'deleted'] as const;
export const ItemStatusSchema = z.enum(ITEM_STATUSES);
export type ItemStatus = z.infer<typeof ItemStatusSchema>;

/** Spec 8 limits of upload metadata, in characters after trimming: the one definition. */
export const LISTING_LIMITS = {
  title: 200,
  description: 4000,
  promptSummary: 1000,
  techStack: 200,
} as const;

/**
 * One metadata text field as the server checks it: a string, trimmed, at most `max` characters,
 * non-empty when required, no NUL or other control character. Each check carries the message the
 * upload answers with (code `invalid_metadata`), in this order.
 */
function metadataText(field: string, max: number, required: boolean) {
  const base = z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters` });
  return (required ? base.min(1, { error: `${field} must not be empty` }) : base).refine(
    (s) => !hasControlCharacters(s),
    { error: `${field} must not contain NUL or other control characters` },
  );
}

/**
 * Upload metadata as a client sends it. The upload checks it with this very schema (domain
 * listings/upload.ts), which yields the price in base units (`Micro`, the one conversion); the
 * price range is the deployment's, so the upload judges it on that result. Issues under `prices`
 * are answered `invalid_price`, the others `invalid_metadata`.
 */
export const UploadMetadataSchema = z
  .object({
    title: metadataText('title', LISTING_LIMITS.title, true).describe(
      `1..${LISTING_LIMITS.title} characters`,
    ),
    description: metadataText('description', LISTING_LIMITS.description, true).describe(
      `1..${LISTING_LIMITS.description} characters: what the code does and how to use it`,
    ),
    prompt_summary: metadataText('prompt_summary', LISTING_LIMITS.promptSummary, false)
      .optional()
      .describe(
        `Optional, up to ${LISTING_LIMITS.promptSummary} characters: the task this solves, as an agent would ask`,
      ),
    tech_stack: metadataText('tech_stack', LISTING_LIMITS.techStack, true).describe(
      `Comma-separated technologies, 1..${LISTING_LIMITS.techStack} characters (e.g. "TypeScript, Fastify")`,
    ),
    prices: z
      .strictObject(
        { USDC: UsdcPriceSchema.describe('Price in USDC, at most 6 decimals (e.g. 5 or 2.5)') },
        {
          error: (issue) =>
            issue.code === 'unrecognized_keys'
              ? 'only USDC is accepted: { "USDC": <number> }'
              : issue.input === undefined
                ? 'prices is required, e.g. { "USDC": 5 }'
                : 'prices must be an object like { "USDC": 5 }',
        },
      )
      .describe('{ "USDC": <price> }, within the deployment price range'),
  })
  .strict();
/** What a client sends (the price in USDC; the server's parse yields it in base units). */
export type UploadMetadata = z.input<typeof UploadMetadataSchema>;

export const CompressionSchema = z.enum(['zip', 'tar.gz', 'tgz']);

/** The JSON encoding of an upload (multipart carries a `file` part and a `metadata` field). */
export const UploadJsonBodySchema = z.object({
  compression: CompressionSchema.describe('Archive format; tgz means tar.gz'),
  file: z.string().describe('The archive, base64; at most the archive limit once decoded'),
  metadata: UploadMetadataSchema,
});

/** The multipart encoding: one `file` part with a file name, `metadata` as a JSON string. */
export const UploadMultipartBodySchema = z.object({
  file: z.string().describe('The archive as a file part; its name ends in .zip, .tar.gz or .tgz'),
  metadata: z.string().describe('The metadata object (see the JSON encoding) as a JSON string'),
  compression: CompressionSchema.optional().describe('Archive format when the name does not say'),
});

export const UploadResponseSchema = z.object({
  item_id: z.uuid(),
  status: z
    .string()
    .describe('pending_scan, or rejected when identical bytes were listed meanwhile'),
  invoice_url: z.string().describe('Signed link to the listing-fee invoice'),
});
export type UploadResponse = z.infer<typeof UploadResponseSchema>;

export const SellerItemSchema = z.object({
  item_id: z.string(),
  status: ItemStatusSchema,
  status_reason: z.string(),
  title: z.string(),
  tech_stack: z.string(),
  prices: z.object({ USDC: z.number() }),
  created_at: z.string(),
  deleted_at: z.string().nullable(),
});
export type SellerItem = z.infer<typeof SellerItemSchema>;

export const SellerItemsQuerySchema = z.object({
  status: z.enum(ItemStatusSchema.options, code('invalid_status')).optional(),
  ...pageQuery,
});

export const SellerItemsSchema = z.object({
  items: z.array(SellerItemSchema),
  pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }),
  allowed_statuses: z.array(ItemStatusSchema),
});
export type SellerItems = z.infer<typeof SellerItemsSchema>;

/** The owner's view of one listing: scan states and rejection reasons included. */
export const OwnerFindingSchema = z.object({
  rule: z
    .string()
    .describe('The scan rule that refused the archive, e.g. symlink, secret, reserved_name'),
  kind: z
    .string()
    .describe(
      "The rule's family (link, name, traversal, bomb, structure, complexity, duplicate, processing) or what a content rule found (e.g. evm_private_key, elf)",
    ),
  file: z
    .string()
    .optional()
    .describe('Path inside the archive (`outer.zip!/inner/path` inside nested archives)'),
  line: z.number().int().optional().describe('1-based line of the file'),
});
export type OwnerFinding = z.infer<typeof OwnerFindingSchema>;

export const SellerItemStatusSchema = z.object({
  status: ItemStatusSchema,
  reason: z.string(),
  findings: z
    .array(OwnerFindingSchema)
    .optional()
    .describe(
      'Rejected listings only: what the scan refused, to fix before listing again (rule, kind, file, line; never a secret value). The same rules run locally: `npx artifact-marketplace-scan <archive>`',
    ),
});
export type SellerItemStatus = z.infer<typeof SellerItemStatusSchema>;

export const DeleteResponseSchema = z.object({ ok: z.literal(true) });

/** Revision A keyed upload (no fee): poll `status_url`, the public status route, during the scan. */
export const KeyedUploadResponseSchema = z.object({
  item_id: z.uuid(),
  status: ItemStatusSchema,
  status_url: z.string().describe('Public status of the listing; shows the scan states'),
});
export type KeyedUploadResponse = z.infer<typeof KeyedUploadResponseSchema>;

/** Revision A delete: the same `{ message }` on every repeat. */
export const DeleteMessageSchema = z.object({ message: z.string() });
