import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PURCHASE_ERRORS, UPLOAD_ERRORS } from '../error-docs.js';
import type { Deps } from '../../deps.js';
import { ItemParamsSchema } from '../../wire/items.js';
import { renderInvoiceHtml, renderInvoiceMarkdown } from '../../domain/invoices/render.js';
import { deleteListing, sellerItems } from '../../domain/listings/inventory.js';
import {
  DeleteMessageSchema,
  KeyedUploadResponseSchema,
  SellerItemsQuerySchema,
  SellerItemsSchema,
  UploadJsonBodySchema,
  UploadMultipartBodySchema,
} from '../../wire/listings.js';
import { submitKeyedListing } from '../../domain/listings/submit.js';
import { acquire, assertRegionServed } from '../../domain/orders/acquire.js';
import { buildInvoice, invoiceDocument } from '../../domain/orders/invoice.js';
import { findBuyerOrder, orderLinks } from '../../domain/orders/orders.js';
import {
  BuyBodySchema,
  BuyResponseSchema,
  DownloadLinkSchema,
  InvoiceSchema,
  OrderParamsSchema,
  type BuyResponse,
} from '../../wire/orders.js';
import { countryOf } from '../country.js';
import { agentOf } from '../identity.js';
import { payFor } from '../payment.js';
import { sendRepresentation } from '../representation.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';
import { readUpload, uploadBodyLimit } from '../routes/selling.js';
import { revisionAAcquire } from '../../domain/revision-a/acquire-mode.js';

/**
 * Revision A's keyed routes (spec 4.2): the API key names the agent; each handler calls the same
 * domain function as its Revision B counterpart (acquire, listing submission, inventory, orders).
 */
export const keyedRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { config } = deps;
  const keyErrors = { 401: ErrorSchema, 404: ErrorSchema };

  app.post(
    '/api/v1/buy',
    {
      config: {
        auth: 'key',
        price: 'item price',
        payment: 'purchase',
        errors: [...PURCHASE_ERRORS, 'payer_not_linked'],
      },
      schema: describe(
        'purchase',
        'Buy an item with your key: 402 x402 prompt, then 200 with the order and a signed link',
        {
          body: BuyBodySchema,
          response: { 200: BuyResponseSchema, 400: ErrorSchema, ...keyErrors },
        },
      ),
    },
    async (request, reply) => {
      const { item_id, ...body } = request.body;
      const { response, paymentResponseHeader } = await acquire(
        deps,
        item_id,
        body,
        countryOf(request, config),
        payFor(deps, request),
        revisionAAcquire(agentOf(request).id),
      );
      if (paymentResponseHeader) reply.header('PAYMENT-RESPONSE', paymentResponseHeader);
      return response as BuyResponse;
    },
  );

  app.post(
    '/api/v1/items',
    {
      bodyLimit: uploadBodyLimit(config),
      config: {
        auth: 'key',
        payment: 'fee',
        docBody: {
          'multipart/form-data': UploadMultipartBodySchema,
          'application/json': UploadJsonBodySchema,
        },
        errors: UPLOAD_ERRORS,
      },
      schema: describe(
        'selling',
        'List an archive (no fee): validation, then 202 pending_scan; poll status_url',
        {
          consumes: ['multipart/form-data', 'application/json'],
          response: { 202: KeyedUploadResponseSchema, 400: ErrorSchema, 401: ErrorSchema },
        },
      ),
    },
    async (request, reply) => {
      assertRegionServed(config, countryOf(request, config));
      const upload = await readUpload(request, config);
      return reply.status(202).send(await submitKeyedListing(deps, agentOf(request), upload));
    },
  );

  app.delete(
    '/api/v1/items/:uuid',
    {
      config: { auth: 'key', errors: ['item_not_found'] },
      schema: describe('selling', 'Delete an own listing (idempotent); 404 for anyone else', {
        params: ItemParamsSchema,
        response: { 200: DeleteMessageSchema, ...keyErrors },
      }),
    },
    async (request) => {
      await deleteListing(deps, agentOf(request).id, request.params.uuid);
      return { message: `Item ${request.params.uuid} is deleted.` };
    },
  );

  app.get(
    '/api/v1/seller/items',
    {
      config: { auth: 'key' },
      schema: describe(
        'selling',
        "The seller's listings in every state (not purged), newest first",
        {
          querystring: SellerItemsQuerySchema,
          response: { 200: SellerItemsSchema, 401: ErrorSchema },
        },
      ),
    },
    async (request) => sellerItems(deps.sql, agentOf(request).id, request.query),
  );

  app.get(
    '/api/v1/orders/:uuid/download',
    {
      config: { auth: 'key', errors: ['order_not_found'] },
      schema: describe('purchase', 'A fresh signed download link for an own completed order', {
        params: OrderParamsSchema,
        response: { 200: DownloadLinkSchema, ...keyErrors },
      }),
    },
    async (request) => {
      const order = await findBuyerOrder(deps.sql, request.params.uuid, agentOf(request).id);
      const { download_url, expires_in } = orderLinks(config, deps.secrets.urlSigningKey, order);
      return { download_url, expires_in };
    },
  );

  app.get(
    '/api/v1/orders/:uuid/invoice',
    {
      config: { auth: 'key', errors: ['order_not_found'] },
      schema: describe('purchase', 'Invoice of an own order as JSON, HTML or Markdown by Accept', {
        params: OrderParamsSchema,
        response: { 200: InvoiceSchema, ...keyErrors },
      }),
    },
    async (request, reply) => {
      const order = await findBuyerOrder(deps.sql, request.params.uuid, agentOf(request).id);
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
