import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { accountRoutes } from './routes/account.js';
import { sellingRoutes } from './routes/selling.js';

export type RouteGroup = FastifyPluginAsyncZod<{ deps: Deps }>;

/**
 * What differs between the two contract revisions at the HTTP face: only this deployment's routes
 * are served (and so documented in OpenAPI and the manifest).
 */
export interface RevisionFace {
  /** Account routes (registered after the shared feature routes). */
  accountRoutes: RouteGroup[];
  /** Upload routes (registered after multipart). */
  sellingRoutes: RouteGroup;
  /** OpenAPI `components` (the credential's security scheme), if any. */
  openapiComponents?: Record<string, unknown>;
}

/** Revision B (the default): wallet identity on every account route, the paid upload. */
export const revisionBFace: RevisionFace = {
  accountRoutes: [accountRoutes],
  sellingRoutes,
};
