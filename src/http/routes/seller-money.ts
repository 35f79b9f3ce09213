import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { sellerPayouts } from '../../domain/payouts/payouts.js';
import { SellerPayoutsSchema, SellerStatsSchema } from '../../wire/payouts.js';
import { sellerStats } from '../../domain/payouts/stats.js';
import type { RouteGroup } from '../face.js';
import { agentOf } from '../identity.js';
import { ErrorSchema } from '../../wire/errors.js';
import { describe } from '../route-meta.js';

/** The seller's stats (spec 2.7), in both revisions with this deployment's credential. */
export const sellerStatsRoutes: RouteGroup = async (app, { deps, face }) => {
  const auth = face.accountAuth;
  app.get(
    '/api/v1/seller/stats',
    {
      config: { auth },
      schema: describe(
        'selling',
        'Your listing counts by status, completed sales (gross and your share) and the ten latest sales',
        { response: { 200: SellerStatsSchema, ...(auth === 'key' && { 401: ErrorSchema }) } },
      ),
    },
    async (request) => sellerStats(deps.sql, agentOf(request)),
  );
};

/**
 * Revision B's payouts (spec 2.8); Revision A's payouts (another shape) are in
 * revision-a/account.ts.
 */
export const sellerPayoutRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/api/v1/seller/payouts',
    {
      config: { auth: 'id402' },
      schema: describe(
        'selling',
        'Pending balances of your payout contracts per chain (with a payout_now recipe) and the last 50 payouts',
        { response: { 200: SellerPayoutsSchema } },
      ),
    },
    async (request) => sellerPayouts(deps, agentOf(request)),
  );
};
