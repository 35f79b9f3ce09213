import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Browser safety headers with @fastify/helmet on every response. The HTML pages (invoices, terms,
 * licence) carry no script, style sheet, frame or form: the policy allows nothing but inline
 * style attributes and same-origin images, no framing (`frame-ancestors 'none'`, X-Frame-Options
 * DENY), `nosniff` and `no-referrer`. JSON answers stay readable cross-origin: CORS headers are set
 * in plugins/cors.ts, and Cross-Origin-Resource-Policy is `cross-origin` so browser agents can read them.
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(helmet, {
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
  },
  { name: 'security-headers' },
);
