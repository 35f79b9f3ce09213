import { z } from 'zod';
import { code } from '../errors.js';
import { integerParam } from './input.js';

/**
 * Wire schemas of selling (spec 2.2, 3.1, 4.3, 8): zod only, shared by the routes, the OpenAPI
 * document and manifest, the typed client and the MCP tools.
 */
export const ITEM_STATUSES = ['pending_scan', 'scanning', 'active', 'rejected', 'deleted'] as const;
export const ItemStatusSchema = z.enum(ITEM_STATUSES);
export type ItemStatus = z.infer<typeof ItemStatusSchema>;

/** Spec 8 limits of upload metadata. */
export const LISTING_LIMITS = {
  title: 200,
  description: 4000,
  promptSummary: 1000,
  techStack: 200,
  metadataChars: 5000,
} as const;

/** Upload metadata as a client sends it (the server checks each field with a stable code). */
export const UploadMetadataSchema = z
  .object({
    title: z.string().min(1).max(LISTING_LIMITS.title).describe('1..200 characters'),
    description: z
      .string()
      .min(1)
      .max(LISTING_LIMITS.description)
      .describe('1..4000 characters: what the code does and how to use it'),
    prompt_summary: z
      .string()
      .max(LISTING_LIMITS.promptSummary)
      .optional()
      .describe('Optional, up to 1000 characters: the task this solves, as an agent would ask'),
    tech_stack: z
      .string()
      .min(1)
      .max(LISTING_LIMITS.techStack)
      .describe('Comma-separated technologies, 1..200 characters (e.g. "TypeScript, Fastify")'),
    prices: z
      .object({ USDC: z.number().describe('Price in USDC, at most 6 decimals (e.g. 5 or 2.5)') })
      .describe('{ "USDC": <price> }, within the deployment price range'),
  })
  .strict();
export type UploadMetadata = z.infer<typeof UploadMetadataSchema>;

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
  limit: integerParam('invalid_limit')
    .pipe(z.number().min(1, code('invalid_limit')).max(100, code('invalid_limit')))
    .default(100)
    .describe('Page size, an integer 1..100 (default 100)'),
  offset: integerParam('invalid_offset')
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, code('invalid_offset')))
    .default(0)
    .describe('Rows to skip, an integer >= 0 (default 0)'),
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
