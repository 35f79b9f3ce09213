import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { ackFeedback, readInbox } from '../../domain/feedback/inbox.js';
import { submitPlatformFeedback } from '../../domain/feedback/platform.js';
import {
  FeedbackParamsSchema,
  InboxQuerySchema,
  InboxResponseSchema,
  PlatformFeedbackBodySchema,
  PlatformFeedbackCreatedSchema,
} from '../../wire/feedback.js';
import { sellerPayoutsRevisionA } from '../../domain/payouts/payouts-a.js';
import { SellerPayoutsASchema } from '../../wire/payouts.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';

const ONE_DAY_SECONDS = 86_400;

/**
 * Revision A's keyed routes whose path or answer differ from Revision B's (spec 4.2): payouts
 * keyed by linked wallet, the inbox and ack under /feedback, platform feedback with a one-day
 * Retry-After. Same domain functions as Revision B. Item feedback and stats are shared routes
 * (feedback.ts, seller-money.ts) that take the API key here.
 */
export const keyedAccountRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { config } = deps;

  app.get(
    '/api/v1/seller/payouts',
    {
      config: { auth: 'key' },
      schema: describe(
        'selling',
        'Balances of your payout contracts per chain, keyed by your linked wallet (read-only)',
        { response: { 200: SellerPayoutsASchema, 401: ErrorSchema } },
      ),
    },
    async (request) => sellerPayoutsRevisionA(deps, agentOf(request)),
  );

  app.post(
    '/api/v1/feedback/platform',
    {
      config: { auth: 'key', errors: ['feature_disabled'] },
      schema: describe(
        'feedback',
        'Feedback to the platform (5 per 24 hours; 429 with Retry-After of one day)',
        {
          body: PlatformFeedbackBodySchema.pick({ text: true }),
          response: { 201: PlatformFeedbackCreatedSchema, 401: ErrorSchema, 429: ErrorSchema },
        },
      ),
    },
    async (request, reply) => {
      const res = await submitPlatformFeedback(
        deps.sql,
        agentOf(request).address,
        request.body,
        config.PLATFORM_FEEDBACK_DAILY_LIMIT,
        ONE_DAY_SECONDS,
      );
      return reply.status(201).send(res);
    },
  );

  app.get(
    '/api/v1/feedback/inbox',
    {
      config: { auth: 'key' },
      schema: describe(
        'feedback',
        'Approved feedback on your items, oldest first; marks returned rows read unless peek=true',
        { querystring: InboxQuerySchema, response: { 200: InboxResponseSchema, 401: ErrorSchema } },
      ),
    },
    async (request) => readInbox(deps.sql, agentOf(request).id, request.query),
  );

  app.post(
    '/api/v1/feedback/:uuid/ack',
    {
      config: { auth: 'key', errors: ['feedback_not_found'] },
      schema: describe('feedback', 'Mark one inbox row read (idempotent); 404 if not yours', {
        params: FeedbackParamsSchema,
        response: { 204: z.null().describe('Acknowledged'), 401: ErrorSchema, 404: ErrorSchema },
      }),
    },
    async (request, reply) => {
      await ackFeedback(deps.sql, agentOf(request).id, request.params.uuid);
      return reply.status(204).send(null);
    },
  );
};
