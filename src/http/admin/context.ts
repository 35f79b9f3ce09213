import cookie from '@fastify/cookie';
import Tokens from '@fastify/csrf';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import { recordAudit } from '../../domain/operator/audit.js';
import {
  endSession,
  isOperatorToken,
  sessionActor,
  startSession,
  TOKEN_ACTOR,
} from '../../domain/operator/credentials.js';
import { AppError, code } from '../../errors.js';
import { hasControlCharacters } from '../../wire/input.js';
import { validationError } from '../error-handler.js';
import { sendPage } from '../pages/views.js';
import { servedOverTls } from '../plugins/security-headers.js';

/**
 * The console's context (src/http/admin/): its cookies, form bodies and CSRF, the gate every
 * operator route declares (`config.operator`), its errors as pages, and signing in and out. The
 * other routes are in ./pages.ts (the console) and ./api.ts (the operator API); ./index.ts puts
 * them together.
 */

/** The Fastify instance of the admin plugin's context (the zod type provider). */
export type AdminApp = Parameters<FastifyPluginAsyncZod>[0];

/** How a console route is entered: the sign-in form, a console session, or the token (API). */
export type OperatorGate = 'open' | 'session' | 'token';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Operator routes (src/http/admin/): how the caller proves to be the operator. */
    operator?: OperatorGate;
  }
  interface FastifyRequest {
    /** The signed-in operator (console session or token). */
    operator?: string;
  }
  interface FastifyInstance {
    /** preHandler of the console's forms: 403 csrf_invalid unless the form's token is this browser's. */
    csrfProtection: preHandlerAsyncHookHandler;
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type TlsConfig = Pick<Config, 'PUBLIC_BASE_URL'>;

/**
 * The console's two cookies (the session and the CSRF secret), named and scoped by how the request
 * came. Wherever HSTS is sent (servedOverTls: over TLS directly, behind a proxy that says so, or
 * when PUBLIC_BASE_URL is https) they are `__Host-admin_session` and `__Host-admin_csrf`: Secure,
 * Path=/ and no Domain, which browsers enforce for the prefix, so a sibling subdomain cannot plant
 * or shadow them; such a request reads only the prefixed names. Over plain http (localhost) the
 * prefix cannot be used: `admin_session` and `admin_csrf` on Path=/admin.
 */
export function consoleCookies(request: FastifyRequest, config: TlsConfig) {
  const tls = servedOverTls(request, config);
  const prefix = tls ? '__Host-' : '';
  return {
    session: `${prefix}admin_session`,
    csrf: `${prefix}admin_csrf`,
    options: {
      path: tls ? '/' : '/admin',
      httpOnly: true,
      sameSite: 'strict' as const,
      secure: tls,
    },
  };
}

/** Where a form's CSRF token may come (as @fastify/csrf-protection reads it). */
const csrfTokenOf = (request: FastifyRequest): string | undefined => {
  const body = request.body as { _csrf?: unknown } | undefined;
  const token =
    body?._csrf ??
    request.headers['csrf-token'] ??
    request.headers['xsrf-token'] ??
    request.headers['x-csrf-token'] ??
    request.headers['x-xsrf-token'];
  return typeof token === 'string' ? token : undefined;
};

/**
 * A state-changing console request must come from the console's own origin. A browser names where
 * a request came from (Sec-Fetch-Site, Origin); either saying another site or origin (or an
 * opaque `null` origin) is refused even with a valid cookie and form token, so a token that
 * leaked cannot be replayed from another page. The console's origin is PUBLIC_BASE_URL's, or the
 * origin the request itself was sent to (scheme and Host, as the trusted proxy reports them).
 * A request naming neither (curl, scripts) is left to its token.
 */
function assertSameOrigin(request: FastifyRequest, config: Pick<Config, 'PUBLIC_BASE_URL'>) {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new AppError('cross_origin_refused', {
      message: `Sec-Fetch-Site ${JSON.stringify(site)}: the console accepts changes only from its own pages`,
    });
  }
  const origin = request.headers.origin;
  // `null` is what a browser sends for a form under this service's Referrer-Policy no-referrer:
  // it names no origin, so Sec-Fetch-Site (above) decides.
  if (origin === undefined || origin === 'null') return;
  const own = [new URL(config.PUBLIC_BASE_URL).origin, `${request.protocol}://${request.host}`];
  if (!own.some((o) => o.toLowerCase() === origin.toLowerCase())) {
    throw new AppError('cross_origin_refused', {
      message: 'Origin is not this console: it accepts changes only from its own pages',
    });
  }
}

/** Typed text an operator sends (filters, a reason): no NUL or control character reaches SQL. */
export const plainText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !hasControlCharacters(s), code('invalid_query'));

export const listOf = (v: string | string[] | undefined) => (v === undefined ? [] : [v].flat());

/** The longest `next` the sign-in form takes back. */
export const NEXT_MAX = 500;
const CONSOLE_PAGE = /^\/admin(?:[/?#]|$)/;

/**
 * Where to go after signing in: a console page of this origin only. The path is resolved as a
 * browser would (dot segments, backslashes) and sent back in its encoded form, so neither a line
 * break (an invalid Location header, a 500) nor `/admin/../x` leads anywhere but the console.
 */
export function safeNext(next: string | undefined): string {
  if (!next || !CONSOLE_PAGE.test(next)) return '/admin';
  const base = 'http://console.invalid';
  const url = new URL(next, base);
  if (url.origin !== base || !/^\/admin(?:\/|$)/.test(url.pathname)) return '/admin';
  const page = url.pathname + url.search + url.hash;
  // the sign-in form carries it back: longer than its field allows, the console's front page
  return page.length <= NEXT_MAX ? page : '/admin';
}

/** Route configs and schema of the operator routes: how each is entered; all hidden from OpenAPI. */
export const OPEN = { auth: 'operator', operator: 'open', throttle: 'signed' } as const;
export const SESSION = { auth: 'operator', operator: 'session' } as const;
export const TOKEN = { auth: 'operator', operator: 'token', throttle: 'signed' } as const;
export const HIDE = { hide: true } as const;

/** How console routes answer: the sign-in page, or a page for the signed-in operator. */
export interface ConsolePages {
  signInPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    problem?: string,
    next?: string,
  ): FastifyReply;
  page(request: FastifyRequest, reply: FastifyReply, template: string, data: object): FastifyReply;
}

/** Sets up the console's context on `app` (the admin plugin's own): plugins, gate, error pages. */
export async function installConsoleContext(
  app: AdminApp,
  deps: Pick<Deps, 'sql' | 'adminToken' | 'config'>,
): Promise<ConsolePages> {
  const { sql } = deps;
  // cookies, form bodies and CSRF exist in this context only: the API keeps its JSON-only parsers
  await app.register(cookie);
  await app.register(formbody);
  // Synchronizer tokens with @fastify/csrf, its secret in a cookie (as @fastify/csrf-protection
  // does, whose cookie name is fixed at registration: this one follows the request's scheme).
  const tokens = Tokens();
  app.decorate('csrfProtection', async (request: FastifyRequest) => {
    assertSameOrigin(request, deps.config);
    const secret = request.cookies[consoleCookies(request, deps.config).csrf];
    const token = csrfTokenOf(request);
    if (!secret || !token || !tokens.verify(secret, token)) throw new AppError('csrf_invalid');
  });

  // The console is same-origin only: the CORS plugin gives its answers and preflights no CORS
  // header (`isConsole`, src/http/plugins/cors.ts); nothing of it is cached.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  const csrfToken = (request: FastifyRequest, reply: FastifyReply) => {
    const names = consoleCookies(request, deps.config);
    let secret = request.cookies[names.csrf];
    if (!secret) {
      secret = tokens.secretSync();
      reply.setCookie(names.csrf, secret, names.options);
    }
    return tokens.create(secret);
  };

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
      const actor = await sessionActor(
        sql,
        request.cookies[consoleCookies(request, deps.config).session],
      );
      // A missing or ended session is not a failed credential: the sign-in page, 401.
      if (!actor) return signInPage(request, reply, 401);
      request.operator = actor;
    }
  });

  // Errors of console pages are pages; the operator API's (and anything unexpected) go to the
  // service's one JSON error handler.
  app.setErrorHandler(async (err: Error & { code?: string }, request, reply) => {
    const e = validationError(err) ?? err;
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

  return { signInPage, page };
}

/** Signing in with the operator token (a session cookie) and out. */
export function sessionRoutes(
  app: AdminApp,
  deps: Pick<Deps, 'sql' | 'config' | 'adminToken'>,
  { signInPage }: ConsolePages,
): void {
  const { sql, config } = deps;
  app.get(
    '/admin/login',
    {
      config: { ...OPEN, throttle: undefined },
      schema: { ...HIDE, querystring: z.object({ next: z.string().max(NEXT_MAX).optional() }) },
    },
    async (request, reply) => signInPage(request, reply, 200, undefined, request.query.next),
  );

  app.post(
    '/admin/login',
    {
      config: OPEN,
      schema: {
        ...HIDE,
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
      const names = consoleCookies(request, config);
      reply.setCookie(names.session, s.id, {
        ...names.options,
        maxAge: config.ADMIN_SESSION_TTL_SECONDS,
      });
      return reply.redirect(safeNext(request.body.next), 303);
    },
  );

  app.post(
    '/admin/logout',
    { config: SESSION, schema: HIDE, preHandler: app.csrfProtection },
    async (request, reply) => {
      const names = consoleCookies(request, config);
      await endSession(sql, request.cookies[names.session]);
      await recordAudit(sql, { actor: request.operator!, action: 'session.sign_out' });
      reply.clearCookie(names.session, names.options);
      return reply.redirect('/admin/login', 303);
    },
  );
}
