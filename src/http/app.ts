import accepts from '@fastify/accepts';
import { z } from 'zod';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './error-handler.js';
import { installIdentity } from './identity.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { accountRoutes } from './routes/account.js';
import { acquireRoutes } from './routes/acquire.js';
import { authRoutes } from './routes/auth.js';
import { discoveryRoutes } from './routes/discovery.js';
import { feedbackRoutes } from './routes/feedback.js';
import { itemRoutes } from './routes/items.js';
import { keyedRoutes } from './routes/keyed.js';
import { keyedAccountRoutes } from './routes/keyed-account.js';
import { orderRoutes } from './routes/orders.js';
import { sellerMoneyRoutes } from './routes/seller-money.js';
import { sellingRoutes } from './routes/selling.js';

export const API_VERSION = '2.4.0';
/** Upper bound of a PAYMENT-SIGNATURE header (a signed payload echoing our prompt is a few KB). */
export const MAX_PAYMENT_SIGNATURE_BYTES = 32 * 1024;
const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
const CORS_ALLOW_HEADERS = 'Content-Type, Accept, PAYMENT-SIGNATURE, X-API-KEY';

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: Array<{ method: string; url: string; hidden: boolean }>;
  }
}

/** Health probes arrive every few seconds from orchestrators: their request lines go to debug. */
const PROBE_PATHS = new Set(['/api/v1/health']);
const isProbe = (request: FastifyRequest) =>
  request.method === 'GET' && PROBE_PATHS.has(request.url.split('?')[0] ?? '');

class QuietProbeLogs extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (isProbe(request)) request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (isProbe(request) && !error && reply.statusCode < 500) {
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    } else super.requestCompleted(error, request, reply);
  }
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * Builds the Fastify app without listening. Only the process entry listens; tests use
 * `app.inject` or listen on an ephemeral port.
 */
export async function buildApp(config: Config, deps: Deps): Promise<App> {
  const app: App = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new QuietProbeLogs(),
    // Every body but an upload (which sets its own limit) is a few hundred bytes of JSON.
    bodyLimit: 64 * 1024,
    // Node's default 16 KB for all headers is too tight for clients that echo the whole payment
    // prompt back in PAYMENT-SIGNATURE; the payment header itself is capped below.
    // Slow or stalled clients are cut off (config.ts HTTP_*_TIMEOUT_MS): Node checks the header
    // and request deadlines every connectionsCheckingInterval, answers 408 and closes.
    http: {
      maxHeaderSize: 64 * 1024,
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1_000, config.HTTP_HEADERS_TIMEOUT_MS),
    },
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: true,
    genReqId: () => crypto.randomUUID(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installIdentity(app, deps);
  await app.register(securityHeadersPlugin);
  // After the identity hook: the per-account bucket reads the verified wallet or key's account.
  await app.register(rateLimitPlugin, { config });

  // Every registered route, for the manifest/OpenAPI agreement test and operators' debugging.
  const routeTable: Array<{ method: string; url: string; hidden: boolean }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routeTable.push({
        method,
        url: r.url,
        hidden: Boolean((r.schema as { hide?: boolean } | undefined)?.hide),
      });
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Code artifact marketplace',
        version: API_VERSION,
        description:
          'Agents buy and sell code archives paid in USDC over x402 v2. Start at /api/v1/skills.',
      },
      servers: [{ url: config.PUBLIC_BASE_URL }],
      // Revision A's credential: the API key header (spec 5.1). Revision B has no key scheme.
      ...(config.CONTRACT_REVISION === 'A' && {
        components: {
          securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
        },
      }),
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      const auth = input.route.config?.auth ?? 'public';
      const price = input.route.config?.price;
      const docBody = input.route.config?.docBody;
      return {
        ...out,
        schema: {
          ...out.schema,
          ...(docBody && {
            body: {
              content: Object.fromEntries(
                Object.entries(docBody).map(([type, schema]) => [
                  type,
                  { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) },
                ]),
              ),
            },
          }),
          'x-auth': auth,
          ...(auth === 'key' && { security: [{ apiKey: [] }] }),
          ...(price && { 'x-price-usdc': price }),
        },
      };
    },
  });

  app.addHook('onRequest', async (request) => {
    const sig = request.headers['payment-signature'];
    if (typeof sig === 'string' && sig.length > MAX_PAYMENT_SIGNATURE_BYTES) {
      throw new AppError('payment_header_too_large', {
        message: `PAYMENT-SIGNATURE is limited to ${MAX_PAYMENT_SIGNATURE_BYTES} bytes`,
      });
    }
  });

  // CORS preflight for browser agents: a paid retry carries PAYMENT-SIGNATURE and a JSON body,
  // neither of which a browser sends cross-origin without this answer.
  app.options('/*', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .status(204)
      .header('Access-Control-Allow-Methods', CORS_ALLOW_METHODS)
      .header('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
      .header('Access-Control-Max-Age', '600')
      .send(),
  );

  app.addHook('onSend', async (request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Access-Control-Expose-Headers', 'PAYMENT-REQUIRED, PAYMENT-RESPONSE');
    if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
  });

  // `Content-Type: application/json` with nothing after it is no body, not a 400: clients send
  // that header on bodiless identity probes (DELETE) and on the unpaid acquire call.
  // A `__proto__` or `constructor` key is data like any other: JSON.parse makes it an own
  // property (no prototype is touched) and each route's schema refuses or drops unknown keys.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  await app.register(accepts);
  await app.register(discoveryRoutes, { deps });
  await app.register(itemRoutes, { deps });
  await app.register(acquireRoutes, { deps });
  await app.register(orderRoutes, { deps });
  // Routes whose credential differs per contract revision: only this deployment's are served
  // (and so documented in OpenAPI and the manifest).
  await app.register(feedbackRoutes, { deps });
  await app.register(sellerMoneyRoutes, { deps });
  if (config.CONTRACT_REVISION === 'A') {
    await app.register(authRoutes, { deps });
    await app.register(keyedAccountRoutes, { deps });
  } else {
    await app.register(accountRoutes, { deps });
  }
  // Uploads stream through multipart; the file part is cut off past MAX_ARCHIVE_BYTES (413).
  await app.register(multipart, {
    limits: {
      fileSize: config.MAX_ARCHIVE_BYTES,
      files: 1,
      fields: 8,
      fieldSize: 64 * 1024,
      parts: 10,
    },
  });
  if (config.CONTRACT_REVISION === 'A') await app.register(keyedRoutes, { deps });
  else await app.register(sellingRoutes, { deps });
  return app;
}
