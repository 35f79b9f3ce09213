/**
 * A standalone x402 facilitator server over the chain facilitator (for `FACILITATOR_URL`
 * deployments): `GET /supported`, `POST /verify`, `POST /settle` with the wire shapes of
 * @x402/core's `HTTPFacilitatorClient` (`{ x402Version, paymentPayload, paymentRequirements }` in,
 * `VerifyResponse` / `SettleResponse` out, 200 for every verdict, 400 for a body that is not one).
 * Settlements are serialised per relayer key and chain, as in process. With `catalogueUrl` it
 * also answers the facilitator discovery API over that marketplace's catalogue (./discovery-api.ts).
 */
import { parsePaymentPayload, parsePaymentRequirements } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ChainFacilitator } from '../../src/chain/chain-facilitator.js';
import { registerDiscoveryApi } from './discovery-api.js';

const BodySchema = z.object({
  x402Version: z.number().int().optional(),
  paymentPayload: z.unknown(),
  paymentRequirements: z.unknown(),
});

export function buildFacilitatorServer(
  facilitator: ChainFacilitator,
  opts: { logger?: Logger; catalogueUrl?: string } = {},
): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger | undefined,
    bodyLimit: 64 * 1024,
  }) as unknown as FastifyInstance;
  const parse = (body: unknown) => {
    const b = BodySchema.safeParse(body);
    if (!b.success) return undefined;
    const payload = parsePaymentPayload(b.data.paymentPayload);
    const requirements = parsePaymentRequirements(b.data.paymentRequirements);
    if (!payload.success || !requirements.success) return undefined;
    if (!('accepted' in payload.data) || !('amount' in requirements.data)) return undefined;
    return {
      payload: payload.data as PaymentPayload,
      requirements: requirements.data as PaymentRequirements,
    };
  };
  const invalid = {
    error: 'invalid_request',
    message: 'expected { paymentPayload, paymentRequirements } (x402 v2)',
  };

  app.get('/supported', () => facilitator.getSupported());
  app.post('/verify', async (req, reply) => {
    const p = parse(req.body);
    if (!p) return reply.code(400).send(invalid);
    return facilitator.verify(p.payload, p.requirements);
  });
  app.post('/settle', async (req, reply) => {
    const p = parse(req.body);
    if (!p) return reply.code(400).send(invalid);
    return facilitator.settle(p.payload, p.requirements);
  });
  app.get('/health', () => ({ status: 'ok' }));
  if (opts.catalogueUrl) registerDiscoveryApi(app, opts.catalogueUrl);
  return app;
}
