import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { acquire } from '../../domain/orders/acquire.js';
import { ItemParamsSchema } from '../../domain/items/schemas.js';
import { AcquireBodySchema, AcquireResponseSchema } from '../../domain/orders/schemas.js';
import { countryOf } from '../country.js';
import { payFor } from '../payment.js';
import { describe } from '../route-meta.js';

export const acquireRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/api/v1/items/:uuid/acquire',
    {
      config: { auth: 'paid402', price: 'item price' },
      schema: describe(
        'purchase',
        'Buy an item: 402 x402 prompt, then 200 with order and signed links',
        {
          params: ItemParamsSchema,
          body: AcquireBodySchema.nullish(),
          response: { 200: AcquireResponseSchema },
        },
      ),
    },
    async (request, reply) => {
      const country = countryOf(request, deps.config);
      const { response, paymentResponseHeader } = await acquire(
        deps,
        request.params.uuid,
        request.body ?? {},
        country,
        payFor(deps, request),
      );
      reply.header('PAYMENT-RESPONSE', paymentResponseHeader);
      return response;
    },
  );
};
