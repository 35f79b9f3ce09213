import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { assertRegionServed } from '../../domain/orders/acquire.js';
import { renderInvoiceHtml, renderInvoiceMarkdown } from '../../domain/invoices/render.js';
import { verifyLink } from '../../domain/links/signed-links.js';
import { deleteListing, sellerItems, sellerItemStatus } from '../../domain/listings/inventory.js';
import { listingInvoice, listingInvoiceDocument } from '../../domain/listings/invoice.js';
import { ItemStatusSchema } from '../../domain/listings/listings.js';
import { submitListing } from '../../domain/listings/submit.js';
import {
  compressionOfName,
  finishUpload,
  parseJsonUpload,
  tooLarge,
  type ValidUpload,
} from '../../domain/listings/upload.js';
import { badRequest } from '../../errors.js';
import { countryOf } from '../country.js';
import { payFor } from '../payment.js';
import { sendRepresentation } from '../representation.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import type { Config } from '../../config.js';

const ItemParams = z.object({ uuid: z.uuid('invalid_item_id') });

const SellerItemSchema = z.object({
  item_id: z.string(),
  status: ItemStatusSchema,
  status_reason: z.string(),
  title: z.string(),
  tech_stack: z.string(),
  prices: z.object({ USDC: z.number() }),
  created_at: z.string(),
  deleted_at: z.string().nullable(),
});

/** Reads a multipart upload: one `file` part (streamed, cut off past the limit) and `metadata`. */
async function readMultipart(request: FastifyRequest, config: Config): Promise<ValidUpload> {
  let metadata: unknown;
  let fileName: string | undefined;
  let bytes: Buffer | undefined;
  let compressionField: unknown;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || bytes) {
        part.file.resume();
        throw badRequest('invalid_request', 'send exactly one file part, named "file"');
      }
      fileName = part.filename;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > config.MAX_ARCHIVE_BYTES) throw tooLarge(config.MAX_ARCHIVE_BYTES);
        chunks.push(chunk);
      }
      if (part.file.truncated) throw tooLarge(config.MAX_ARCHIVE_BYTES);
      bytes = Buffer.concat(chunks, size);
    } else if (part.fieldname === 'metadata') {
      metadata = part.value;
    } else if (part.fieldname === 'compression') {
      compressionField = part.value;
    }
  }
  if (!bytes)
    throw badRequest('missing_file', 'the multipart body needs a "file" part with the archive');
  const byName = fileName ? compressionOfName(fileName) : undefined;
  const compression =
    compressionField === 'zip'
      ? 'zip'
      : compressionField === 'tar.gz' || compressionField === 'tgz'
        ? 'tar.gz'
        : (byName ?? 'zip');
  return finishUpload({ metadata, compression, fileName, bytes }, config);
}

export const sellingRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { config } = deps;
  // JSON carries the archive in base64 (4/3 of its size) plus metadata.
  const jsonBodyLimit = Math.ceil(config.MAX_ARCHIVE_BYTES / 3) * 4 + 64 * 1024;

  app.post(
    '/api/v1/items',
    {
      bodyLimit: jsonBodyLimit,
      config: { auth: 'paid402', price: String(config.LISTING_FEE_USDC) },
      schema: describe(
        'selling',
        'List an archive: validation, then the 0.01 USDC listing fee (402), then 202 pending_scan',
        {
          consumes: ['multipart/form-data', 'application/json'],
          response: {
            202: z.object({ item_id: z.string(), status: z.string(), invoice_url: z.string() }),
          },
        },
      ),
    },
    async (request, reply) => {
      assertRegionServed(config, countryOf(request, config));
      const upload = request.isMultipart()
        ? await readMultipart(request, config)
        : parseJsonUpload(request.body, config);
      const res = await submitListing(deps, upload, payFor(deps, request));
      reply.header('PAYMENT-RESPONSE', res.paymentResponseHeader);
      return reply.status(202).send(res.body);
    },
  );

  app.delete(
    '/api/v1/items/:uuid',
    {
      config: { auth: 'id402' },
      schema: describe('selling', 'Delete an own listing (idempotent); 404 for anyone else', {
        params: ItemParams,
        response: { 200: z.object({ ok: z.literal(true) }) },
      }),
    },
    async (request) => {
      const agent = agentOf(request);
      await deleteListing(deps, agent.id, request.params.uuid);
      return { ok: true as const };
    },
  );

  app.get(
    '/api/v1/seller/items',
    {
      config: { auth: 'id402' },
      schema: describe(
        'selling',
        "The seller's listings in every state (not purged), newest first",
        {
          querystring: z.object({
            status: z.enum(ItemStatusSchema.options, { error: 'invalid_status' }).optional(),
            limit: z.coerce
              .number({ error: 'invalid_limit' })
              .int('invalid_limit')
              .min(1, 'invalid_limit')
              .max(100, 'invalid_limit')
              .default(100),
            offset: z.coerce
              .number({ error: 'invalid_offset' })
              .int('invalid_offset')
              .min(0, 'invalid_offset')
              .default(0),
          }),
          response: {
            200: z.object({
              items: z.array(SellerItemSchema),
              pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }),
              allowed_statuses: z.array(ItemStatusSchema),
            }),
          },
        },
      ),
    },
    async (request) => {
      const agent = agentOf(request);
      return sellerItems(deps.sql, agent.id, request.query);
    },
  );

  app.get(
    '/api/v1/seller/items/:uuid/status',
    {
      config: { auth: 'id402' },
      schema: describe(
        'selling',
        'Status of an own listing, including the scan and hidden states',
        {
          params: ItemParams,
          response: { 200: z.object({ status: ItemStatusSchema, reason: z.string() }) },
        },
      ),
    },
    async (request) => {
      const agent = agentOf(request);
      return sellerItemStatus(deps.sql, agent.id, request.params.uuid);
    },
  );

  app.get(
    '/api/v1/listing-invoices/:uuid',
    {
      config: { auth: 'public' },
      schema: describe(
        'selling',
        'Invoice of a listing fee (signed, time-limited link from the upload response)',
        {
          params: ItemParams,
          querystring: z.object({ exp: z.string().optional(), sig: z.string().optional() }),
        },
      ),
    },
    async (request, reply) => {
      const invoice = await listingInvoice(deps.sql, request.params.uuid);
      verifyLink(
        deps.secrets.urlSigningKey,
        { kind: 'listing-invoice', id: request.params.uuid, fileSha256: invoice.item.sha256 },
        request.query.exp,
        request.query.sig,
      );
      const doc = listingInvoiceDocument(invoice);
      return sendRepresentation(request, reply, {
        json: invoice,
        html: () => renderInvoiceHtml(doc),
        markdown: () => renderInvoiceMarkdown(doc),
      });
    },
  );
};
