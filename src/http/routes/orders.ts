import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { renderInvoiceHtml, renderInvoiceMarkdown } from '../../domain/invoices/render.js';
import { buildInvoice, invoiceDocument } from '../../domain/orders/invoice.js';
import {
  ArchiveDownloadSchema,
  BuyerOrdersQuerySchema,
  BuyerOrdersSchema,
  InvoiceSchema,
  OrderLinksSchema,
  OrderParamsSchema,
  SignedLinkQuerySchema,
} from '../../wire/orders.js';
import { attachmentDisposition } from '../../domain/orders/disposition.js';
import {
  archiveEtag,
  archiveSize,
  archiveStream,
  byteRange,
} from '../../domain/orders/download.js';
import {
  buyerOrders,
  findBuyerOrder,
  orderOfLink,
  orderLinks,
} from '../../domain/orders/orders.js';
import { sendRepresentation } from '../representation.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import type { RevisionFace } from '../face.js';

/** Revision B refetches links with an identity signature; Revision A has keyed routes instead. */
export const orderLinkRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/api/v1/orders',
    {
      config: { auth: 'id402' },
      schema: describe(
        'purchase',
        "The signing wallet's completed orders, newest first (fresh links: the order route)",
        {
          querystring: BuyerOrdersQuerySchema,
          response: { 200: BuyerOrdersSchema },
        },
      ),
    },
    async (request) => {
      const agent = agentOf(request);
      return buyerOrders(deps.sql, agent.id, request.query);
    },
  );

  app.get(
    '/api/v1/orders/:uuid',
    {
      config: { auth: 'id402', errors: ['order_not_found'] },
      schema: describe(
        'purchase',
        'Fresh signed download and invoice links for an own completed order',
        {
          params: OrderParamsSchema,
          response: {
            200: OrderLinksSchema,
          },
        },
      ),
    },
    async (request) => {
      const agent = agentOf(request);
      const order = await findBuyerOrder(deps.sql, request.params.uuid, agent.id);
      return orderLinks(deps.config, deps.secrets.urlSigningKey, order);
    },
  );
};

/** The signed download and invoice links of an order (both revisions). */
export const downloadRoutes: FastifyPluginAsyncZod<{ deps: Deps; face: RevisionFace }> = async (
  app,
  { deps, face },
) => {
  // where the buyer of an expired link gets a fresh one, in this deployment's revision
  const refresh = (orderId: string) =>
    `fetch fresh links with ${face.acquire.mode.freshLinks.replaceAll('{order_id}', orderId)}`;
  app.get(
    '/api/v1/downloads/:uuid',
    {
      config: {
        auth: 'public',
        errors: [
          'invalid_link',
          'link_expired',
          'storage_unavailable',
          'archive_unavailable',
          'range_not_satisfiable',
        ],
      },
      schema: describe('purchase', 'Download the archive of an order (signed, time-limited link)', {
        params: OrderParamsSchema,
        querystring: SignedLinkQuerySchema,
        response: { 200: ArchiveDownloadSchema, 206: ArchiveDownloadSchema },
      }),
    },
    async (request, reply) => {
      const order = await orderOfLink(
        deps.sql,
        deps.secrets.urlSigningKey,
        {
          kind: 'download',
          orderId: request.params.uuid,
          exp: request.query.exp,
          sig: request.query.sig,
        },
        refresh,
      );
      const size = await archiveSize(deps.storage, order, request.log);
      const etag = archiveEtag(order.archiveSha256);
      // a resumed download (RFC 9110 ranges): one range of the same bytes, validated by the ETag
      const range = byteRange(
        size,
        etag,
        request.headers.range,
        request.headers['if-range'] as string | undefined,
      );
      const digest = Buffer.from(order.archiveSha256, 'hex').toString('base64');
      reply
        .type(order.compression === 'zip' ? 'application/zip' : 'application/gzip')
        .header('Content-Disposition', attachmentDisposition(order.fileName))
        .header('Accept-Ranges', 'bytes')
        .header('ETag', etag)
        .header('X-Content-SHA256', order.archiveSha256)
        .header('Repr-Digest', `sha-256=:${digest}:`)
        .header('Cache-Control', 'private, no-store');
      if (range) {
        reply
          .code(206)
          .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
          .header('Content-Length', String(range.end - range.start + 1));
      } else reply.header('Content-Length', String(size));
      // HEAD (clients probe download_url): headers only; an empty stream keeps Content-Length.
      if (request.method === 'HEAD') return reply.send(Readable.from([]));
      return reply.send(await archiveStream(deps.storage, order, request.log, range));
    },
  );

  app.get(
    '/api/v1/invoices/:uuid',
    {
      config: { auth: 'public', errors: ['invalid_link', 'link_expired'] },
      schema: describe(
        'purchase',
        'Invoice of an order as JSON, HTML or Markdown by Accept (signed link)',
        {
          params: OrderParamsSchema,
          querystring: SignedLinkQuerySchema,
          response: { 200: InvoiceSchema },
        },
      ),
    },
    async (request, reply) => {
      const order = await orderOfLink(
        deps.sql,
        deps.secrets.urlSigningKey,
        {
          kind: 'invoice',
          orderId: request.params.uuid,
          exp: request.query.exp,
          sig: request.query.sig,
        },
        refresh,
      );
      const invoice = buildInvoice(order);
      const doc = invoiceDocument(invoice);
      return sendRepresentation(request, reply, {
        json: invoice,
        html: () => renderInvoiceHtml(doc),
        markdown: () => renderInvoiceMarkdown(doc),
      });
    },
  );
};
