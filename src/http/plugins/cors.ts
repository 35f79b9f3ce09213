import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
// Mcp-Protocol-Version: a browser MCP client sends it on every request after initialize (/mcp).
const CORS_ALLOW_HEADERS =
  'Content-Type, Accept, PAYMENT-SIGNATURE, SIGN-IN-WITH-X, X-API-KEY, Mcp-Protocol-Version';

/**
 * The CORS headers of every answer. Exported for answers written on the raw response (the hijacked
 * `/mcp` route), which Fastify's onSend hooks never see.
 */
export const CORS_RESPONSE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE',
} as const;

/**
 * The operator console (`/admin` and under it: pages, forms, the operator API) is same-origin only
 * (docs/console.md): its answers carry no CORS header, and neither does a preflight to it, which
 * the catch-all `OPTIONS` route below answers outside the console's own context.
 */
function isConsole(url: string): boolean {
  // every answer asks: no allocation
  return url.startsWith('/admin') && (url.length === 6 || url[6] === '/' || url[6] === '?');
}

/** CORS for browser agents, and `Cache-Control: no-store` on every API answer. */
export const corsPlugin = fp(
  async (app: FastifyInstance) => {
    // CORS preflight for browser agents: a paid retry carries PAYMENT-SIGNATURE and a JSON body,
    // neither of which a browser sends cross-origin without this answer.
    app.options('/*', { schema: { hide: true } }, async (request, reply) =>
      isConsole(request.url)
        ? reply.status(204).send()
        : reply
            .status(204)
            .header('Access-Control-Allow-Methods', CORS_ALLOW_METHODS)
            .header('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
            .header('Access-Control-Max-Age', '600')
            .send(),
    );

    // a callback hook: nothing to wait for, so no promise per request
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!isConsole(request.url)) reply.headers(CORS_RESPONSE_HEADERS);
      if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
      done(null, payload);
    });
  },
  { name: 'cors' },
);
