import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * Browser safety headers with helmet on every response. The HTML pages (invoices, terms,
 * licence) carry no script, style sheet, frame or form: the policy allows nothing but inline
 * style attributes and same-origin images, no framing (`frame-ancestors 'none'`, X-Frame-Options
 * DENY), `nosniff` and `no-referrer`. JSON answers stay readable cross-origin: CORS headers are set
 * in plugins/cors.ts, and Cross-Origin-Resource-Policy is `cross-origin` so browser agents can read them.
 *
 * helmet's middleware is built once, here: @fastify/helmet built it again on every request
 * (parsing the policy's directives each time, in two async hooks) for the same headers.
 */
const setHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'unsafe-inline'"],
      imgSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  crossOriginEmbedderPolicy: false,
});

export const securityHeadersPlugin = fp(
  (app: FastifyInstance, _opts: unknown, done: () => void) => {
    // on the raw response at onRequest, as before: every answer carries them, errors included
    app.addHook('onRequest', (request, reply, next) =>
      setHeaders(request.raw, reply.raw, () => next()),
    );
    done();
  },
  { name: 'security-headers' },
);
