import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';

export const itemRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async () => {};
