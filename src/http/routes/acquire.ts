import { acquire } from '../../domain/orders/acquire.js';
import { PURCHASE_ERRORS } from '../error-docs.js';
import { ItemParamsSchema } from '../../wire/items.js';
import {
  AcquireBodySchema,
  type AcquireResponse,
  type PublicAcquireAResponse,
} from '../../wire/orders.js';
import type { RouteGroup } from '../face.js';
import { countryOf } from '../country.js';
import { payFor } from '../payment.js';
import { describe } from '../route-meta.js';

export const acquireRoutes: RouteGroup = async (app, { deps, face }) => {
  const { mode, description, response } = face.acquire;
  app.post(
    '/api/v1/items/:uuid/acquire',
    {
      config: {
        auth: 'paid402',
        price: 'item price',
        payment: 'purchase',
        errors: PURCHASE_ERRORS,
      },
      schema: describe('purchase', description, {
        params: ItemParamsSchema,
        body: AcquireBodySchema.nullish(),
        response: { 200: response },
      }),
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
      if (paymentResponseHeader) reply.header('PAYMENT-RESPONSE', paymentResponseHeader);
      return response as AcquireResponse | PublicAcquireAResponse;
    },
  );
};
