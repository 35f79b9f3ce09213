import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { AgentUsageOptions } from '../domain/discovery/guide.js';
import type { AcquireMode } from '../domain/orders/acquire-mode.js';
import type { ItemStatus } from '../wire/listings.js';

export type RouteGroup = FastifyPluginAsyncZod<{ deps: Deps; face: RevisionFace }>;

/**
 * What differs between the two contract revisions at the HTTP face, as data: only this
 * deployment's routes are served (and so documented in OpenAPI and the manifest). `buildApp`
 * picks one face; no route reads the revision itself. Revision B: revision-b.ts; Revision A:
 * revision-a/face.ts.
 */
export interface RevisionFace {
  /** The credential of the account routes both revisions share (item feedback, seller stats). */
  accountAuth: 'key' | 'id402';
  /** Routes after the shared feature routes, in order (orders, feedback, seller money, account). */
  routes: RouteGroup[];
  /** Upload routes (registered after multipart). */
  sellingRoutes: RouteGroup;
  /** OpenAPI `components` (the credential's security scheme), if any. */
  openapiComponents?: Record<string, unknown>;
  /** The public `POST /items/{uuid}/acquire`. */
  acquire: { mode: AcquireMode; description: string; response: z.ZodType };
  /** Search lists only items the buyer can pay for (A: a seller wallet on some chain). */
  payableOnly: boolean;
  /** Listing statuses `GET /items/{uuid}/status` shows publicly. */
  publicStatuses: readonly ItemStatus[];
  /** The manifest's blocks that differ per revision. */
  manifest: {
    authentication(base: string): Record<string, unknown>;
    /** Extra fields of `payment` (after `chains`). */
    payment(config: Config): Record<string, unknown>;
    /** The per-credential fields of `limits.rate_limits` (after `unsigned_per_address`). */
    rateLimits(config: Config): Record<string, number>;
  };
  /** The agent guide served at `/agent-usage`. */
  guide(base: string, opts: AgentUsageOptions): string;
}
