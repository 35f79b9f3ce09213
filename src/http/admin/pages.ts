import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { recentAudit } from '../../domain/operator/audit.js';
import {
  findListings,
  LISTING_STATUSES,
  listingDetail,
  takeDownListing,
} from '../../domain/operator/listings.js';
import { judgeFeedback, moderationQueue } from '../../domain/operator/moderation.js';
import { overview } from '../../domain/operator/overview.js';
import {
  payoutStates,
  reconcileNowAudited,
  unresolvedSettlements,
} from '../../domain/operator/payments.js';
import { ItemParamsSchema } from '../../wire/items.js';
import { barChart } from '../pages/views.js';
import {
  HIDE,
  listOf,
  plainText,
  SESSION,
  UUID,
  type AdminApp,
  type ConsolePages,
} from './context.js';
import type { OperatorCounters } from './counters.js';

/**
 * The console's pages (issue 26): the overview, moderation, listings, payments and the audit
 * trail (signing in and out: ./context.ts). Each action goes through src/domain/operator/ and its audit row.
 */
export function consolePageRoutes(
  app: AdminApp,
  deps: Deps,
  counters: OperatorCounters,
  { page }: ConsolePages,
): void {
  const { sql } = deps;

  // --- overview -------------------------------------------------------------------------------
  app.get('/admin', { config: SESSION, schema: HIDE }, async (request, reply) => {
    const o = await overview(sql, 30);
    const series = (pick: (d: (typeof o.days)[number]) => number) =>
      o.days.map((d) => ({ label: d.day, value: pick(d) }));
    return page(request, reply, 'overview', {
      title: 'Overview',
      section: 'overview',
      o,
      counters: counters.snapshot(),
      charts: [
        barChart(
          'Sales per day',
          series((d) => d.sales),
        ),
        barChart(
          'Sales volume per day (USDC)',
          series((d) => d.sales_usdc),
        ),
        barChart(
          'Listing fees per day (USDC)',
          series((d) => d.fees_usdc),
        ),
        barChart(
          'Active listings at the end of each day',
          series((d) => d.active_listings),
        ),
      ],
    });
  });

  // --- moderation -----------------------------------------------------------------------------
  app.get(
    '/admin/moderation',
    {
      config: SESSION,
      schema: {
        ...HIDE,
        querystring: z.object({
          approved: z.coerce.number().int().min(0).optional(),
          rejected: z.coerce.number().int().min(0).optional(),
          missed: z.coerce.number().int().min(0).optional(),
        }),
      },
    },
    async (request, reply) => {
      const { approved, rejected, missed } = request.query;
      const done = [
        approved !== undefined && `${approved} approved`,
        rejected !== undefined && `${rejected} rejected`,
        missed ? `${missed} no longer pending` : undefined,
      ].filter(Boolean);
      return page(request, reply, 'moderation', {
        title: 'Moderation',
        section: 'moderation',
        queue: await moderationQueue(sql),
        notice: done.length ? `${done.join(', ')}.` : undefined,
      });
    },
  );

  app.post(
    '/admin/moderation',
    {
      config: SESSION,
      schema: {
        ...HIDE,
        body: z.object({
          verdict: z.enum(['approve', 'reject']),
          ids: z.union([z.string(), z.array(z.string()).max(500)]).optional(),
          _csrf: z.string().optional(),
        }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const ids = listOf(request.body.ids).filter((id) => UUID.test(id));
      const { verdict } = request.body;
      const results = await judgeFeedback(sql, request.operator!, ids, verdict);
      const judged = results.filter((r) => 'moderation_status' in r).length;
      const key = verdict === 'approve' ? 'approved' : 'rejected';
      return reply.redirect(
        `/admin/moderation?${key}=${judged}&missed=${results.length - judged}`,
        303,
      );
    },
  );

  // --- listings -------------------------------------------------------------------------------
  const ListingFilter = z.object({
    status: z
      .union([z.enum(LISTING_STATUSES), z.literal('')])
      .optional()
      .transform((v) => v || undefined),
    seller: plainText(200)
      .optional()
      .transform((v) => v || undefined),
    q: plainText(200)
      .optional()
      .transform((v) => v || undefined),
  });

  app.get(
    '/admin/listings',
    { config: SESSION, schema: { ...HIDE, querystring: ListingFilter } },
    async (request, reply) =>
      page(request, reply, 'listings', {
        title: 'Listings',
        section: 'listings',
        filter: request.query,
        statuses: LISTING_STATUSES,
        listings: await findListings(sql, request.query),
      }),
  );

  app.get(
    '/admin/listings/:uuid',
    {
      config: SESSION,
      schema: {
        ...HIDE,
        params: ItemParamsSchema,
        querystring: z.object({ done: z.enum(['taken_down', 'not_listed']).optional() }),
      },
    },
    async (request, reply) => {
      const l = await listingDetail(sql, request.params.uuid);
      return page(request, reply, 'listing', {
        title: l.title,
        section: 'listings',
        l,
        notice: {
          taken_down: 'Taken down: the listing left search and detail.',
          not_listed: `Nothing to take down: the listing is ${l.status}.`,
          none: undefined,
        }[request.query.done ?? 'none'],
      });
    },
  );

  app.post(
    '/admin/listings/:uuid/take-down',
    {
      config: SESSION,
      schema: {
        ...HIDE,
        params: ItemParamsSchema,
        body: z.object({ reason: plainText(500).min(1), _csrf: z.string().optional() }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const { uuid } = request.params;
      const { taken_down } = await takeDownListing(
        deps,
        request.operator!,
        uuid,
        request.body.reason,
      );
      return reply.redirect(
        `/admin/listings/${uuid}?done=${taken_down ? 'taken_down' : 'not_listed'}`,
        303,
      );
    },
  );

  // --- payments -------------------------------------------------------------------------------
  app.get(
    '/admin/payments',
    {
      config: SESSION,
      schema: {
        ...HIDE,
        querystring: z.object({
          completed: z.coerce.number().int().min(0).optional(),
          released: z.coerce.number().int().min(0).optional(),
          unresolved: z.coerce.number().int().min(0).optional(),
        }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      return page(request, reply, 'payments', {
        title: 'Payments',
        section: 'payments',
        unresolved: await unresolvedSettlements(sql),
        payouts: await payoutStates(sql),
        age: humanAge,
        notice:
          q.completed !== undefined
            ? `Reconciled: ${q.completed} completed, ${q.released ?? 0} released, ${q.unresolved ?? 0} still open.`
            : undefined,
      });
    },
  );

  app.post(
    '/admin/payments/reconcile',
    {
      config: SESSION,
      schema: { ...HIDE, body: z.object({ _csrf: z.string().optional() }).optional() },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const r = await reconcileNowAudited(deps, request.operator!);
      return reply.redirect(
        `/admin/payments?completed=${r.completed}&released=${r.released}&unresolved=${r.unresolved}`,
        303,
      );
    },
  );

  // --- audit ----------------------------------------------------------------------------------
  app.get('/admin/audit', { config: SESSION, schema: HIDE }, async (request, reply) =>
    page(request, reply, 'audit', {
      title: 'Audit',
      section: 'audit',
      entries: await recentAudit(sql, 200),
    }),
  );
}

function humanAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
