import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { describe } from '../route-meta.js';

export const discoveryRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app) => {
  app.get(
    '/api/v1/health',
    {
      config: { auth: 'public' },
      schema: describe('discovery', 'Liveness: always { status: "ok" }', {
        response: { 200: z.object({ status: z.literal('ok') }).strict() },
      }),
    },
    async () => ({ status: 'ok' as const }),
  );
};
