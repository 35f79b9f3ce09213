import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { listPendingFeedback } from '../../domain/feedback/moderation.js';
import { judgeFeedback } from '../../domain/operator/moderation.js';
import { unresolvedPayments } from '../../domain/payments/reconciler.js';
import { withdrawSigner } from '../../domain/scan/signers.js';
import { code } from '../../errors.js';
import { HIDE, TOKEN, type AdminApp } from './context.js';

/** The operator API under /admin/api (the terminal commands while the service holds the database). */
export function operatorApiRoutes(
  app: AdminApp,
  deps: Pick<Deps, 'sql' | 'payments' | 'config' | 'attestor'>,
): void {
  const { sql } = deps;
  app.get(
    '/admin/api/moderation',
    {
      config: TOKEN,
      schema: {
        ...HIDE,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
      },
    },
    async (request) => ({ items: await listPendingFeedback(sql, request.query.limit) }),
  );

  app.post(
    '/admin/api/moderation',
    {
      config: TOKEN,
      schema: {
        ...HIDE,
        body: z.object({
          verdict: z.enum(['approve', 'reject']),
          ids: z
            .array(z.uuid(code('invalid_feedback_id')))
            .min(1)
            .max(1000),
        }),
      },
    },
    async (request) => ({
      results: await judgeFeedback(sql, request.operator!, request.body.ids, request.body.verdict),
    }),
  );

  app.get(
    '/admin/api/payments/unresolved',
    {
      config: TOKEN,
      schema: {
        ...HIDE,
        // omitted: the age `npm run payments:unresolved` lists by default
        querystring: z.object({ older_than_seconds: z.coerce.number().int().min(0).optional() }),
      },
    },
    async (request) => ({
      items: await unresolvedPayments(
        deps.payments.store,
        request.query.older_than_seconds ?? deps.config.RECONCILE_ALERT_AFTER_SECONDS,
      ),
    }),
  );

  app.post(
    '/admin/api/attestation/withdraw',
    {
      config: TOKEN,
      schema: { ...HIDE, body: z.object({ address: z.string().max(64) }) },
    },
    async (request) =>
      withdrawSigner(sql, request.body.address, deps.attestor.address, request.operator!),
  );
}
