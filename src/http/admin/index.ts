import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { operatorApiRoutes } from './api.js';
import { installConsoleContext, sessionRoutes } from './context.js';
import type { OperatorCounters } from './counters.js';
import { consolePageRoutes } from './pages.js';

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
  const pages = await installConsoleContext(app, deps);
  sessionRoutes(app, deps, pages);
  consolePageRoutes(app, deps, counters, pages);
  operatorApiRoutes(app, deps);
};
