import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { UPLOAD_ERRORS } from '../error-docs.js';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { assertRegionServed } from '../../domain/orders/acquire.js';
import { renderInvoiceHtml, renderInvoiceMarkdown } from '../../domain/invoices/render.js';
import { verifyLink } from '../../domain/links/signed-links.js';
import { deleteListing, sellerItems, sellerItemStatus } from '../../domain/listings/inventory.js';
import { listingInvoice, listingInvoiceDocument } from '../../domain/listings/invoice.js';
import {
  DeleteResponseSchema,
  SellerItemsQuerySchema,
  SellerItemsSchema,
  SellerItemStatusSchema,
  UploadJsonBodySchema,
  UploadMultipartBodySchema,
  UploadResponseSchema,
} from '../../wire/listings.js';
import { ItemParamsSchema } from '../../wire/items.js';
import { SignedLinkQuerySchema } from '../../wire/orders.js';
import { submitListing } from '../../domain/listings/submit.js';
import {
  compressionOfName,
  finishUpload,
  parseCompression,
  parseJsonUpload,
  tooLarge,
  type ValidUpload,
} from '../../domain/listings/upload.js';
import { AppError, badRequest } from '../../errors.js';
import { countryOf } from '../country.js';
import { payFor } from '../payment.js';
import { sendRepresentation } from '../representation.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import type { Config } from '../../config.js';

/** Multipart limits that @fastify/multipart raises as errors (app.ts sets files, fields, parts). */
const MULTIPART_LIMIT_CODES = new Set(['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT']);

/**
 * What went wrong while reading a multipart body, as the caller's error: a part limit is 413
 * `too_many_parts`; anything else the parser or the request stream raises (no boundary, a body
 * that ends mid-part, a malformed part header, a client that closed early) is the body's fault,
 * 400 `invalid_multipart`. Only parsing happens inside the read loop, so nothing else lands here.
 */
function multipartError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && MULTIPART_LIMIT_CODES.has(code)) {
    return new AppError('too_many_parts', {
      message:
        'send one "file" part and the "metadata" field (optionally "compression"), nothing more',
    });
  }
  const why = err instanceof Error ? `: ${err.message}` : '';
  return badRequest('invalid_multipart', `the multipart body could not be read${why}`);
}

interface MultipartForm {
  metadata?: unknown;
  fileName?: string;
  bytes?: Buffer;
  compression?: unknown;
}

/**
 * Counts the body's bytes as the parser reads them, whatever their framing, and ends the read
 * with 413 once they pass `limit`: a chunked body declares no length, and bytes that never form a
 * part (a preamble with no boundary) reach no part's limit, so they were read for as long as the
 * client sent them. The multipart plugin ends its iteration on the request stream's 'error'.
 * Returns the function that stops counting.
 */
function capBody(request: FastifyRequest, limit: number, max: number): () => void {
  let seen = 0;
  const count = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= limit) return;
    request.raw.off('data', count);
    request.raw.emit('error', tooLarge(max));
  };
  request.raw.on('data', count);
  return () => request.raw.off('data', count);
}

/** The parts of a multipart upload: one `file` part (streamed, cut off past the limit), fields. */
async function readParts(request: FastifyRequest, config: Config): Promise<MultipartForm> {
  const form: MultipartForm = {};
  const parts = request.parts();
  const stopCounting = capBody(request, multipartBodyLimit(config), config.MAX_ARCHIVE_BYTES);
  try {
    return await readEachPart(parts, form, config);
  } finally {
    stopCounting();
  }
}

async function readEachPart(
  parts: ReturnType<FastifyRequest['parts']>,
  form: MultipartForm,
  config: Config,
): Promise<MultipartForm> {
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw badRequest('missing_file', 'the archive goes in a file part named "file"');
      }
      if (form.bytes) {
        part.file.resume();
        throw new AppError('too_many_parts', {
          message: 'send exactly one file part, named "file"',
        });
      }
      form.fileName = part.filename;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > config.MAX_ARCHIVE_BYTES) throw tooLarge(config.MAX_ARCHIVE_BYTES);
        chunks.push(chunk);
      }
      if (part.file.truncated) throw tooLarge(config.MAX_ARCHIVE_BYTES);
      form.bytes = Buffer.concat(chunks, size);
    } else if (part.fieldname === 'metadata' || part.fieldname === 'compression') {
      // a repeated field is ambiguous (which one did the seller mean?): refused, not last-wins
      if (form[part.fieldname] !== undefined) {
        throw badRequest('invalid_multipart', `send the "${part.fieldname}" field once`);
      }
      form[part.fieldname] = part.value;
    }
  }
  return form;
}

/**
 * The most a multipart upload's body can hold: the archive, 8 fields of 64 KiB and the parts'
 * headers and boundaries (well under the 1 MiB allowed for them together).
 */
export const multipartBodyLimit = (config: Pick<Config, 'MAX_ARCHIVE_BYTES'>) =>
  config.MAX_ARCHIVE_BYTES + 1024 * 1024;

/**
 * How much of a refused body is still read and dropped: enough for a client that writes its
 * whole body before it reads to reach the answer through the sockets' buffers, bounded so that
 * one that sends on forever (a chunked body, a length declared in terabytes) is cut off.
 */
const DRAIN_AFTER_REFUSAL_BYTES = 16 * 1024 * 1024;

/**
 * What the client still sends is read and dropped, so the socket sees the client leave (or
 * serves its next request) instead of hanging unread until the server's timeouts; past
 * DRAIN_AFTER_REFUSAL_BYTES the connection is ended. The multipart plugin unpipes (which
 * pauses) after a refusal: every pause resumes.
 */
function dropBody(request: FastifyRequest): void {
  let dropped = 0;
  request.raw.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_AFTER_REFUSAL_BYTES) request.raw.socket?.destroy();
  });
  const drop = () => request.raw.resume();
  request.raw.on('pause', drop);
  drop();
}

/** Reads and validates a multipart upload (`file` part and `metadata` field). */
async function readMultipart(request: FastifyRequest, config: Config): Promise<ValidUpload> {
  // a body declared larger than any upload can be is refused before a byte of it is parsed (the
  // file part's own limit only applies once the parser reaches a file part: bytes that never
  // form one were read for as long as the client sent them)
  const declared = Number(request.headers['content-length']);
  if (declared > multipartBodyLimit(config)) {
    dropBody(request);
    throw tooLarge(config.MAX_ARCHIVE_BYTES);
  }
  let form: MultipartForm;
  try {
    form = await readParts(request, config);
  } catch (err) {
    // the parser let go of the body mid-way
    dropBody(request);
    throw multipartError(err);
  }
  const { metadata, fileName, bytes } = form;
  if (!bytes)
    throw badRequest('missing_file', 'the multipart body needs a "file" part with the archive');
  // the field, when sent, is checked as the JSON key is; without it the file name says
  const compression =
    form.compression !== undefined
      ? parseCompression(form.compression)
      : ((fileName ? compressionOfName(fileName) : undefined) ?? 'zip');
  return finishUpload({ metadata, compression, fileName, bytes }, config);
}

/** A validated upload in either encoding: multipart (`file` part, `metadata` field) or JSON. */
export async function readUpload(request: FastifyRequest, config: Config): Promise<ValidUpload> {
  return request.isMultipart()
    ? readMultipart(request, config)
    : parseJsonUpload(request.body, config);
}

/** JSON carries the archive in base64 (4/3 of its size) plus metadata. */
export const uploadBodyLimit = (config: Config) =>
  Math.ceil(config.MAX_ARCHIVE_BYTES / 3) * 4 + 64 * 1024;

/** Revision B selling (spec 4.3): the paid upload and the wallet-identity seller routes. */
export const sellingRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { config } = deps;
  const jsonBodyLimit = uploadBodyLimit(config);

  app.post(
    '/api/v1/items',
    {
      bodyLimit: jsonBodyLimit,
      config: {
        auth: 'paid402',
        payment: 'fee',
        price: String(config.LISTING_FEE_USDC),
        docBody: {
          'multipart/form-data': UploadMultipartBodySchema,
          'application/json': UploadJsonBodySchema,
        },
        errors: [...UPLOAD_ERRORS, 'region_unavailable'],
      },
      schema: describe(
        'selling',
        'List an archive: validation, then the 0.01 USDC listing fee (402), then 202 pending_scan',
        {
          consumes: ['multipart/form-data', 'application/json'],
          response: {
            202: UploadResponseSchema,
          },
        },
      ),
    },
    async (request, reply) => {
      assertRegionServed(config, countryOf(request, config));
      const upload = await readUpload(request, config);
      const res = await submitListing(deps, upload, payFor(deps, request));
      reply.header('PAYMENT-RESPONSE', res.paymentResponseHeader);
      return reply.status(202).send(res.body);
    },
  );

  app.delete(
    '/api/v1/items/:uuid',
    {
      config: { auth: 'id402', errors: ['item_not_found'] },
      schema: describe('selling', 'Delete an own listing (idempotent); 404 for anyone else', {
        params: ItemParamsSchema,
        response: { 200: DeleteResponseSchema },
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
          querystring: SellerItemsQuerySchema,
          response: { 200: SellerItemsSchema },
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
      config: { auth: 'id402', errors: ['item_not_found'] },
      schema: describe(
        'selling',
        'Status of an own listing, including the scan and hidden states',
        {
          params: ItemParamsSchema,
          response: { 200: SellerItemStatusSchema },
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
      config: { auth: 'public', errors: ['item_not_found', 'invalid_link', 'link_expired'] },
      schema: describe(
        'selling',
        'Invoice of a listing fee (signed, time-limited link from the upload response)',
        {
          params: ItemParamsSchema,
          querystring: SignedLinkQuerySchema,
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
