import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { listPendingFeedback } from '../../domain/feedback/moderation.js';
import { recentAudit, recordAudit } from '../../domain/operator/audit.js';
import {
  endSession,
  isOperatorToken,
  sessionActor,
  startSession,
  TOKEN_ACTOR,
} from '../../domain/operator/credentials.js';
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
import { unresolvedPayments } from '../../domain/payments/reconciler.js';
import { AppError, code } from '../../errors.js';
import { hasControlCharacters } from '../../wire/input.js';
import { ItemParamsSchema } from '../../wire/items.js';
import { validationError } from '../error-handler.js';
import { barChart, sendPage } from '../pages/views.js';
import type { OperatorCounters } from './counters.js';

/** How a console route is entered: the sign-in form, a console session, or the token (API). */
type OperatorGate = 'open' | 'session' | 'token';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Operator routes (src/http/admin/): how the caller proves to be the operator. */
    operator?: OperatorGate;
  }
  interface FastifyRequest {
    /** The signed-in operator (console session or token). */
    operator?: string;
  }
}

const SESSION_COOKIE = 'admin_session';
const CSRF_COOKIE = 'admin_csrf';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Cookies over TLS (directly or behind a proxy that says so) are `Secure`. */
const overTls = (request: FastifyRequest) => request.protocol === 'https';

const cookieOptions = (request: FastifyRequest) => ({
  path: '/admin',
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: overTls(request),
});

/** Typed text an operator sends (filters, a reason): no NUL or control character reaches SQL. */
const plainText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !hasControlCharacters(s), code('invalid_query'));

const listOf = (v: string | string[] | undefined) => (v === undefined ? [] : [v].flat());

/** The longest `next` the sign-in form takes back. */
const NEXT_MAX = 500;
const CONSOLE_PAGE = /^\/admin(?:[/?#]|$)/;

/**
 * Where to go after signing in: a console page of this origin only. The path is resolved as a
 * browser would (dot segments, backslashes) and sent back in its encoded form, so neither a line
 * break (an invalid Location header, a 500) nor `/admin/../x` leads anywhere but the console.
 */
function safeNext(next: string | undefined): string {
  if (!next || !CONSOLE_PAGE.test(next)) return '/admin';
  const base = 'http://console.invalid';
  const url = new URL(next, base);
  if (url.origin !== base || !/^\/admin(?:\/|$)/.test(url.pathname)) return '/admin';
  const page = url.pathname + url.search + url.hash;
  // the sign-in form carries it back: longer than its field allows, the console's front page
  return page.length <= NEXT_MAX ? page : '/admin';
}

/**
 * The operator console (issue 26): server-rendered pages under /admin behind a sign-in with the
 * operator token (a session cookie: HttpOnly, SameSite=Strict, Secure over TLS; a CSRF token in
 * every form), and the operator API under /admin/api for the terminal commands (the token as a
 * Bearer credential). Every action goes through src/domain/operator/ and is written to the audit
 * trail in the action's transaction. Wrong credentials answer 401 and count against the caller's
 * address in the failed-credential bucket (plugins/rate-limit.ts: `throttle: 'signed'`), 429 past it.
 */
export const adminPlugin: FastifyPluginAsyncZod<{
  deps: Deps;
  counters: OperatorCounters;
}> = async (app, { deps, counters }) => {
  const { sql, config } = deps;
  // cookies, form bodies and CSRF exist in this context only: the API keeps its JSON-only parsers
  await app.register(cookie);
  await app.register(formbody);
  await app.register(csrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/admin', sameSite: 'strict', httpOnly: true },
  });

  // The console is same-origin only: no cross-origin reads of its pages or its API.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.removeHeader('Access-Control-Allow-Origin');
    reply.removeHeader('Access-Control-Expose-Headers');
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  const csrfToken = (request: FastifyRequest, reply: FastifyReply) =>
    reply.generateCsrf({ secure: overTls(request) });

  const signInPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    problem?: string,
    next?: string,
  ) =>
    sendPage(
      reply,
      'login',
      {
        title: 'Sign in',
        console: true,
        csrf: csrfToken(request, reply),
        next: safeNext(next ?? (request.method === 'GET' ? request.url : undefined)),
        problem,
      },
      status,
    );

  app.addHook('onRequest', async (request, reply) => {
    const gate = request.routeOptions.config.operator;
    if (gate === 'token') {
      const header = request.headers.authorization ?? '';
      const token = /^Bearer (.+)$/i.exec(header)?.[1];
      if (!isOperatorToken(deps.adminToken, token)) {
        throw new AppError('unauthorized', {
          message: 'send the operator token (ADMIN_TOKEN) as Authorization: Bearer <token>',
        });
      }
      request.operator = TOKEN_ACTOR;
      return;
    }
    if (gate === 'session') {
      const actor = await sessionActor(sql, request.cookies[SESSION_COOKIE]);
      // A missing or ended session is not a failed credential: the sign-in page, 401.
      if (!actor) return signInPage(request, reply, 401);
      request.operator = actor;
    }
  });

  // Errors of console pages are pages; the operator API's (and anything unexpected) go to the
  // service's one JSON error handler.
  app.setErrorHandler(async (err: Error & { code?: string }, request, reply) => {
    const e =
      err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET'
        ? new AppError('csrf_invalid')
        : (validationError(err) ?? err);
    if (!(e instanceof AppError) || request.routeOptions.config.operator === 'token') throw e;
    for (const [k, v] of Object.entries(e.extras.headers ?? {})) reply.header(k, v);
    // (a refusal before this context's hooks ran, a 429, has no cookies parsed: a plain page)
    if (
      e.code === 'unauthorized' &&
      request.routeOptions.url === '/admin/login' &&
      request.method === 'POST'
    ) {
      const next = (request.body as { next?: string } | undefined)?.next;
      return signInPage(request, reply, e.status, e.message, next);
    }
    return sendPage(
      reply,
      'error',
      {
        title: e.code,
        console: true,
        status: e.status,
        code: e.code,
        message: e.message,
        back: request.operator ? '/admin' : '/admin/login',
      },
      e.status,
    );
  });

  const page = (request: FastifyRequest, reply: FastifyReply, template: string, data: object) =>
    sendPage(reply, template, {
      operator: request.operator,
      csrf: csrfToken(request, reply),
      ...data,
    });

  const open = { auth: 'operator', operator: 'open', throttle: 'signed' } as const;
  const session = { auth: 'operator', operator: 'session' } as const;
  const token = { auth: 'operator', operator: 'token', throttle: 'signed' } as const;
  const hide = { hide: true } as const;

  // --- signing in and out ---------------------------------------------------------------------
  app.get(
    '/admin/login',
    {
      config: { ...open, throttle: undefined },
      schema: { ...hide, querystring: z.object({ next: z.string().max(NEXT_MAX).optional() }) },
    },
    async (request, reply) => signInPage(request, reply, 200, undefined, request.query.next),
  );

  app.post(
    '/admin/login',
    {
      config: open,
      schema: {
        ...hide,
        body: z.object({
          token: z.string().max(1000).optional(),
          next: z.string().max(NEXT_MAX).optional(),
          _csrf: z.string().optional(),
        }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      if (!isOperatorToken(deps.adminToken, request.body.token)) {
        throw new AppError('unauthorized', { message: 'That is not the operator token.' });
      }
      const s = await startSession(sql, TOKEN_ACTOR, config.ADMIN_SESSION_TTL_SECONDS);
      await recordAudit(sql, { actor: TOKEN_ACTOR, action: 'session.sign_in' });
      reply.setCookie(SESSION_COOKIE, s.id, {
        ...cookieOptions(request),
        maxAge: config.ADMIN_SESSION_TTL_SECONDS,
      });
      return reply.redirect(safeNext(request.body.next), 303);
    },
  );

  app.post(
    '/admin/logout',
    { config: session, schema: hide, preHandler: app.csrfProtection },
    async (request, reply) => {
      await endSession(sql, request.cookies[SESSION_COOKIE]);
      await recordAudit(sql, { actor: request.operator!, action: 'session.sign_out' });
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect('/admin/login', 303);
    },
  );

  // --- overview -------------------------------------------------------------------------------
  app.get('/admin', { config: session, schema: hide }, async (request, reply) => {
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
      config: session,
      schema: {
        ...hide,
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
      config: session,
      schema: {
        ...hide,
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
    { config: session, schema: { ...hide, querystring: ListingFilter } },
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
      config: session,
      schema: {
        ...hide,
        params: ItemParamsSchema,
        querystring: z.object({ done: z.literal('taken_down').optional() }),
      },
    },
    async (request, reply) => {
      const l = await listingDetail(sql, request.params.uuid);
      return page(request, reply, 'listing', {
        title: l.title,
        section: 'listings',
        l,
        notice: request.query.done ? 'Taken down: the listing left search and detail.' : undefined,
      });
    },
  );

  app.post(
    '/admin/listings/:uuid/take-down',
    {
      config: session,
      schema: {
        ...hide,
        params: ItemParamsSchema,
        body: z.object({ reason: plainText(500).min(1), _csrf: z.string().optional() }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const { uuid } = request.params;
      await takeDownListing(deps, request.operator!, uuid, request.body.reason);
      return reply.redirect(`/admin/listings/${uuid}?done=taken_down`, 303);
    },
  );

  // --- payments -------------------------------------------------------------------------------
  app.get(
    '/admin/payments',
    {
      config: session,
      schema: {
        ...hide,
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
      config: session,
      schema: { ...hide, body: z.object({ _csrf: z.string().optional() }).optional() },
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
  app.get('/admin/audit', { config: session, schema: hide }, async (request, reply) =>
    page(request, reply, 'audit', {
      title: 'Audit',
      section: 'audit',
      entries: await recentAudit(sql, 200),
    }),
  );

  // --- the operator API (the terminal commands while the service holds the database) ----------
  app.get(
    '/admin/api/moderation',
    {
      config: token,
      schema: {
        ...hide,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
      },
    },
    async (request) => ({ items: await listPendingFeedback(sql, request.query.limit) }),
  );

  app.post(
    '/admin/api/moderation',
    {
      config: token,
      schema: {
        ...hide,
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
      config: token,
      schema: {
        ...hide,
        querystring: z.object({ older_than_seconds: z.coerce.number().int().min(0) }),
      },
    },
    async (request) => ({
      items: await unresolvedPayments(deps.payments.store, request.query.older_than_seconds),
    }),
  );
};

function humanAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
