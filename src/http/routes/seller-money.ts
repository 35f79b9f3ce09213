import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { sellerPayouts } from '../../domain/payouts/payouts.js';
import { SellerPayoutsSchema, SellerStatsSchema } from '../../wire/payouts.js';
import { sellerStats } from '../../domain/payouts/stats.js';
import { accountAuth, agentOf } from '../identity.js';
import { ErrorSchema } from '../../wire/errors.js';
import { describe } from '../route-meta.js';

/**
 * The seller's money (spec 2.7, 2.8): stats in both revisions (with this deployment's credential),
 * Revision B's payouts; Revision A's payouts (another shape) are in keyed-account.ts.
 */
export const sellerMoneyRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const auth = accountAuth(deps.config);
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
  if (deps.config.CONTRACT_REVISION === 'A') return;

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
