import { createHash } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { UploadMetadataSchema, UploadResponseSchema } from '../../src/wire/listings.js';
import { MarketplaceError, type HostedDeps } from './paid-call.js';
import { registerPaidTool } from './paid-tool.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The archive of a hosted list_item, decoded in memory: its size is judged from the base64 length
 * BEFORE anything is decoded (413 `payload_too_large`, as the REST upload answers), then the
 * alphabet (400 `invalid_file`). Nothing is written anywhere.
 */
export function decodeArchive(base64: string, maxBytes: number): Buffer {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  if (Math.ceil(base64.length / 4) * 3 - padding > maxBytes) {
    const message = `the archive exceeds ${maxBytes} bytes`;
    throw new MarketplaceError(413, 'payload_too_large', {
      error: 'payload_too_large',
      message,
    });
  }
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    const message = 'archive_base64 is not valid base64 (standard alphabet, padded, no spaces)';
    throw new MarketplaceError(400, 'invalid_file', { error: 'invalid_file', message });
  }
  return Buffer.from(base64, 'base64');
}

const meta = UploadMetadataSchema.shape;

/** Result of the hosted list_item: the REST upload's answer and what the archive was. */
export const HostedListResultSchema = UploadResponseSchema.extend({
  sha256: z.string().describe('SHA-256 of the archive listed (the fee is bound to it)'),
  bytes: z.number(),
  next: z.string(),
});

/**
 * The hosted list_item: the archive comes IN the call (base64), is decoded in memory and sent to
 * the REST upload as a multipart form built in memory; the REST route validates it, prompts the
 * listing fee (bound to this archive and metadata) and lists it once per fee authorization.
 */
export function registerHostedListItem(server: McpServer, deps: HostedDeps): void {
  const max = deps.maxArchiveBytes;
  registerPaidTool(
    server,
    deps,
    'list_item',
    {
      kind: 'paid',
      title: 'List an archive for sale',
      description:
        'Lists code for sale: the archive (.zip or .tar.gz, at most ' +
        `${max} bytes) travels in the call as base64 with its file name and the listing's details. The marketplace ` +
        'validates it first (metadata, name, archive structure, duplicates: refused before any fee), then asks the listing ' +
        'fee (0.01 USDC on the default deployment), bound to this archive and these details: the same signed fee lists ' +
        'nothing else, and sent again returns the same listing without a second fee. The marketplace then scans it; follow ' +
        'with get_listing_status (wait_seconds) until it is active. Returns { item_id, status: "pending_scan", invoice_url, ' +
        'sha256, bytes, next }. Run `npx artifact-marketplace-scan <archive>` locally first to see what the scan refuses.',
      inputSchema: {
        archive_base64: z
          .string()
          .min(1)
          .describe(
            `The archive's bytes in standard base64 (padded, no spaces); at most ${max} bytes decoded`,
          ),
        filename: z
          .string()
          .min(1)
          .max(255)
          .describe('Plain file name ending in .zip, .tar.gz or .tgz; it names the compression'),
        title: meta.title,
        description: meta.description,
        prompt_summary: meta.prompt_summary,
        tech_stack: meta.tech_stack,
        price_usdc: z
          .number()
          .positive()
          .describe(
            'Sale price in USDC, at most 6 decimals, within the deployment range (default 0.1..100)',
          ),
      },
      outputSchema: HostedListResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      discoveryExample: {
        archive_base64: 'UEsDBBQAAAAIAA...',
        filename: 'project.zip',
        title: 'Rate limiter middleware',
        description: 'Token-bucket rate limiting for Express',
        tech_stack: 'typescript, express, redis',
        price_usdc: 4.5,
      },
    },
    (args) => {
      const bytes = decodeArchive(args.archive_base64, max);
      const form = new FormData();
      form.set(
        'metadata',
        JSON.stringify({
          title: args.title,
          description: args.description,
          ...(args.prompt_summary !== undefined && { prompt_summary: args.prompt_summary }),
          tech_stack: args.tech_stack,
          prices: { USDC: args.price_usdc },
        }),
      );
      form.set('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), args.filename);
      return {
        method: 'POST',
        path: '/api/v1/items',
        body: form,
        extra: {
          sha256: createHash('sha256').update(bytes).digest('hex'),
          bytes: bytes.length,
          next: 'The marketplace is scanning it: call get_listing_status with this item_id and wait_seconds: 30 until it is active.',
        },
      };
    },
    {
      duplicate_code:
        'This exact archive is already listed (by you or someone else); nothing was paid. Change the code or find the listing with list_my_items.',
      code_previously_rejected:
        "The marketplace's scan rejected these exact bytes before; they can never be listed. Nothing was paid.",
      listing_limit_reached:
        'This seller has the most listings allowed; delete some first. Nothing was paid.',
      payload_too_large: `The archive is larger than this marketplace accepts (${max} bytes); nothing was sent or paid. List a smaller archive.`,
      authorization_already_used:
        'That signed fee was already used to list a different archive or different details; nothing was stored or charged by this call. Sign a fresh fee from the unpaid answer.',
    },
  );
}
