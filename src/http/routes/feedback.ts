import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { submitItemFeedback } from '../../domain/feedback/feedback.js';
import { ackFeedback, readInbox } from '../../domain/feedback/inbox.js';
import { submitPlatformFeedback } from '../../domain/feedback/platform.js';
import {
  FeedbackParamsSchema,
  InboxQuerySchema,
  InboxResponseSchema,
  ItemFeedbackBodySchema,
  ItemFeedbackCreatedSchema,
  PlatformFeedbackBodySchema,
  PlatformFeedbackCreatedSchema,
} from '../../wire/feedback.js';
import { ItemParamsSchema } from '../../wire/items.js';
import type { RouteGroup } from '../face.js';
import { agentOf, walletOf } from '../identity.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';

/** Item feedback (both revisions, with this deployment's credential; spec 2.5, 4.3). */
export const itemFeedbackRoutes: RouteGroup = async (app, { deps, face }) => {
  const { config } = deps;
  const auth = face.accountAuth;

  app.post(
    '/api/v1/items/:uuid/feedback',
    {
      config: {
        auth,
        errors: [
          'item_not_found',
          'not_buyer',
          'feedback_already_submitted',
          'feedback_window_expired',
          'empty_feedback',
        ],
      },
      schema: describe(
        'feedback',
        'Rate (0..10) and/or review an item you bought, once, within the feedback window',
        {
          params: ItemParamsSchema,
          body: ItemFeedbackBodySchema,
          response: {
            201: ItemFeedbackCreatedSchema,
            ...(auth === 'key' && { 401: ErrorSchema }),
            403: ErrorSchema,
            409: ErrorSchema,
          },
        },
      ),
    },
    async (request, reply) => {
      const res = await submitItemFeedback(
        deps.sql,
        agentOf(request).id,
        request.params.uuid,
        request.body,
        config.FEEDBACK_WINDOW_DAYS,
      );
      return reply.status(201).send(res);
    },
  );
};

/**
 * Revision B's seller inbox and platform feedback (spec 2.6, 3.2, 3.3); Revision A's are in
 * revision-a/account.ts.
 */
export const inboxRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const { config } = deps;
  app.get(
    '/api/v1/inbox',
    {
      config: { auth: 'id402' },
      schema: describe(
        'feedback',
        'Approved feedback on your items, oldest first; marks returned rows read unless peek=true',
        { querystring: InboxQuerySchema, response: { 200: InboxResponseSchema } },
      ),
    },
    async (request) => readInbox(deps.sql, agentOf(request).id, request.query),
  );

  app.post(
    '/api/v1/inbox/:uuid/ack',
    {
      config: { auth: 'id402', errors: ['feedback_not_found'] },
      schema: describe('feedback', 'Mark one inbox row read (idempotent); 404 if not yours', {
        params: FeedbackParamsSchema,
        response: { 204: z.null().describe('Acknowledged'), 404: ErrorSchema },
      }),
    },
    async (request, reply) => {
      await ackFeedback(deps.sql, agentOf(request).id, request.params.uuid);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/feedback/platform',
    {
      config: { auth: 'id402', anyWallet: true, errors: ['feature_disabled'] },
      schema: describe(
        'feedback',
        'Feedback to the platform from any wallet (5 per 24 hours); never creates an account',
        {
          body: PlatformFeedbackBodySchema,
          response: { 201: PlatformFeedbackCreatedSchema, 429: ErrorSchema },
        },
      ),
    },
    async (request, reply) => {
      const res = await submitPlatformFeedback(
        deps.sql,
        walletOf(request),
        request.body,
        config.PLATFORM_FEEDBACK_DAILY_LIMIT,
      );
      return reply.status(201).send(res);
    },
  );
};
