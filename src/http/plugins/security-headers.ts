import helmet from 'helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

/**
 * Strict-Transport-Security as helmet sends it by default (a year, subdomains included), but only
 * where it means something: browsers ignore it over plain http, and scanners flag it there.
 */
const HSTS = 'max-age=31536000; includeSubDomains';

/** The service is reached over TLS: its public URL says so, or this request came over https. */
export function servedOverTls(
  request: FastifyRequest,
  config: Pick<Config, 'PUBLIC_BASE_URL'>,
): boolean {
  // request.protocol reads X-Forwarded-Proto only from a proxy TRUST_PROXY trusts
  return config.PUBLIC_BASE_URL.startsWith('https:') || request.protocol === 'https';
}

/**
 * Browser safety headers with helmet on every response. The HTML pages (invoices, terms,
 * licence) carry no script, style sheet, frame or form: the policy allows nothing but inline
 * style attributes and same-origin images, no framing (`frame-ancestors 'none'`, X-Frame-Options
 * DENY), `nosniff` and `no-referrer`. JSON answers stay readable cross-origin: CORS headers are set
 * in plugins/cors.ts, and Cross-Origin-Resource-Policy is `cross-origin` so browser agents can read them.
 * HSTS only when served over TLS (servedOverTls).
 *
 * helmet's middleware is built once here and run on the raw response at onRequest, as
 * `@fastify/helmet` runs it: that plugin built the middleware again on every request (every
 * header's options and the policy's directives parsed anew, ~20 µs of a paid completion's CPU,
 * docs/benchmarks.md), for per-route options and nonces that no route here uses.
 */
const applyHelmet = helmet({
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
  strictTransportSecurity: false,
});

/** helmet throws its own errors; its callback is only ever called without one. */
const next = () => {};

export const securityHeadersPlugin = fp(
  async (app: FastifyInstance, opts: { config: Pick<Config, 'PUBLIC_BASE_URL'> }) => {
    // on the raw response: answers written past Fastify (/mcp) carry them too
    app.addHook('onRequest', (request, reply, done) => {
      applyHelmet(request.raw, reply.raw, next);
      if (servedOverTls(request, opts.config))
        reply.raw.setHeader('Strict-Transport-Security', HSTS);
      done();
    });
  },
  { name: 'security-headers' },
);
