import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { acquire, revisionBAcquire } from '../../domain/orders/acquire.js';
import { revisionAAcquire } from '../../domain/revision-a/acquire-mode.js';
import { ItemParamsSchema } from '../../wire/items.js';
import {
  AcquireBodySchema,
  AcquireResponseSchema,
  PublicAcquireAResponseSchema,
  type AcquireResponse,
  type PublicAcquireAResponse,
} from '../../wire/orders.js';
import { countryOf } from '../country.js';
import { payFor } from '../payment.js';
import { describe } from '../route-meta.js';

export const acquireRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const revision = deps.config.CONTRACT_REVISION;
  const mode = revision === 'A' ? revisionAAcquire() : revisionBAcquire;
  app.post(
    '/api/v1/items/:uuid/acquire',
    {
      config: { auth: 'paid402', price: 'item price', payment: 'purchase' },
      schema: describe(
        'purchase',
        revision === 'A'
          ? 'Buy an item without a key: 402 x402 prompt, then 200 with order, link and buyer account (chain required on completion)'
          : 'Buy an item: 402 x402 prompt, then 200 with order and signed links',
        {
          params: ItemParamsSchema,
          body: AcquireBodySchema.nullish(),
          response: {
            200: revision === 'A' ? PublicAcquireAResponseSchema : AcquireResponseSchema,
          },
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
        mode,
      );
      reply.header('PAYMENT-RESPONSE', paymentResponseHeader);
      return response as AcquireResponse | PublicAcquireAResponse;
    },
  );
};
