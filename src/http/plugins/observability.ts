import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Metrics, PaymentKind } from '../../telemetry/metrics.js';

/**
 * Metrics and traces of every request (docs/operating.md, "Metrics and traces"): one onResponse
 * hook counts the request by method, route pattern and status, times it, and for a signed x402
 * request (a `PAYMENT-SIGNATURE` on a paid or identity route) counts the payment outcome: `ok`
 * or the catalog code it was answered with. With tracing on, a server span per request comes
 * first of all hooks, so everything the request does is its child.
 */
export function installObservability(
  app: FastifyInstance,
  deps: Pick<Deps, 'telemetry' | 'tracing'>,
): void {
  if (deps.tracing) {
    const hooks = deps.tracing.requestHooks();
    app.addHook('onRequest', hooks.onRequest);
    app.addHook('onResponse', hooks.onResponse);
  }
  const metrics = deps.telemetry;
  app.addHook('onResponse', (request, reply, done) => {
    record(metrics, request, reply);
    done();
  });
}

function record(metrics: Metrics, request: FastifyRequest, reply: FastifyReply): void {
  // one read: Fastify builds the routeOptions object on each access
  const { url, config } = request.routeOptions;
  metrics.httpRequest(
    request.method,
    url ?? 'unmatched',
    reply.statusCode,
    reply.elapsedTime / 1000,
  );
  // the not-found handler has no route config
  const kind: PaymentKind | undefined =
    config?.payment ?? (config?.auth === 'id402' ? 'identity' : undefined);
  if (kind === undefined || request.headers['payment-signature'] === undefined) return;
  // An identity proof is judged by the identity hook: what the route did next is not its outcome.
  // The hook's verdict includes the account: a proof of a wallet that has none is agent_not_found.
  const identified = request.wallet && (request.agent || config?.anyWallet);
  const result =
    kind === 'identity' && identified
      ? 'ok'
      : (request.errorCode ?? (reply.statusCode < 400 ? 'ok' : `http_${reply.statusCode}`));
  metrics.payment(kind, result);
}

/**
 * `GET /metrics` on the main port, answered only with `Authorization: Bearer <token>` where the
 * token is METRICS_TOKEN or the operator's ADMIN_TOKEN (so a new operator scrapes with the token
 * the console printed; METRICS_TOKEN gives a scraper a credential that opens nothing else). 401
 * `unauthorized` otherwise, counted in the failed-credential bucket like a wrong console token.
 * Hidden from the OpenAPI document and the manifest: it is the operator's, not the agents'.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  config: Pick<Config, 'METRICS_TOKEN'>,
  metrics: Metrics,
  adminToken: string | undefined,
): void {
  const tokens = [config.METRICS_TOKEN, adminToken].filter((t): t is string => t !== undefined);
  if (tokens.length === 0) return;
  app.get(
    '/metrics',
    {
      config: { auth: 'public', throttle: 'signed' },
      schema: { hide: true },
      logLevel: 'warn',
    },
    async (request, reply) => {
      if (!tokens.some((token) => bearerOk(token, request.headers.authorization))) {
        throw new AppError('unauthorized', {
          message: 'send the metrics or operator token: Authorization: Bearer <token>',
          headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        });
      }
      // process and event-loop metrics from the first scrape on (nothing loads before one)
      metrics.collectProcessMetrics();
      const { contentType, body } = await metrics.exposition();
      return reply.type(contentType).send(body);
    },
  );
}

/** `Authorization: Bearer <token>`, compared in constant time. */
export function bearerOk(token: string, header: string | undefined): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
