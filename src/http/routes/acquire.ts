import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { acquire, AcquireBodySchema, AcquireResponseSchema } from '../../domain/orders/acquire.js';
import { describe } from '../route-meta.js';

const invalidJson = (message: string) =>
  Object.assign(new Error(message), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });

export const acquireRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  // Scoped to this plugin: an empty JSON body is a bodiless prompt, not an error (clients send
  // `Content-Type: application/json` with nothing on the unpaid call).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(invalidJson('body is not valid JSON'), undefined);
    }
  });

  app.post(
    '/api/v1/items/:uuid/acquire',
    {
      config: { auth: 'paid402', price: 'item price' },
      schema: describe('purchase', 'Buy an item: 402 x402 prompt, then 200 with order and signed links', {
        params: z.object({ uuid: z.uuid('invalid_item_id') }),
        body: AcquireBodySchema.nullish(),
        response: { 200: AcquireResponseSchema },
      }),
    },
    async (request, reply) => {
      const countryHeader = request.headers[deps.config.REGION_COUNTRY_HEADER.toLowerCase()];
      const country = Array.isArray(countryHeader) ? countryHeader[0] : countryHeader;
      const { response, paymentResponseHeader } = await acquire(deps, request, request.params.uuid, request.body ?? {}, country);
      reply.header('PAYMENT-RESPONSE', paymentResponseHeader);
      return response;
    },
  );
};
