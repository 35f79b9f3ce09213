import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { createRequire } from 'node:module';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './error-handler.js';
import { installIdentity } from './identity.js';
import { corsPlugin } from './plugins/cors.js';
import { documentationPlugin } from './plugins/documentation.js';
import { jsonBodyPlugin } from './plugins/json-body.js';
import { installObservability, registerMetricsRoute } from './plugins/observability.js';
import { RequestLogs } from './plugins/logging.js';
import { paymentSignatureCapPlugin } from './plugins/payment-signature-cap.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { revisionBFace } from './revision-b.js';
import { revisionAFace } from './revision-a/face.js';
import { registerRoutes } from './routes/index.js';
import { adminPlugin } from './admin/index.js';
import { OperatorCounters, operatorCountersPlugin } from './admin/counters.js';
import { cataloguePages } from './pages/catalogue.js';
import { registerStylesheet } from './pages/views.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes proxy-addr's trust function (the first
 * `hops` addresses from the socket inward are proxies): Fastify 5 reads a bare number as trust
 * nothing. Like every hop count it cannot tell our proxy from a client that reaches the service
 * directly: docs/deploying.md says when to list the proxy's addresses instead.
 */
function trustProxyOption(
  v: Config['TRUST_PROXY'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof v === 'number' ? (_address, hop) => hop < v : v;
}

/**
 * Fastify's own schema compilers (ajv for validation, fast-json-stringify for serialization),
 * loaded only if a route ever asks for them. Fastify requires both as it is created, ~40 modules
 * and ~30 ms of a start (issue 25); every route here validates and serializes with zod's
 * (setValidatorCompiler, setSerializerCompiler below), so they are loaded by no route today.
 */
type CompilersFactory = Required<
  NonNullable<NonNullable<Parameters<typeof Fastify>[0]>['schemaController']>
>['compilersFactory'];

function lazyFastifyCompilers(): CompilersFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  type Factory = (...args: unknown[]) => unknown;
  const lazily = (name: string): Factory => {
    let factory: Factory | undefined;
    return (...args) => {
      factory ??= (fromFastify(name) as () => Factory)();
      return factory(...args);
    };
  };
  return {
    buildValidator: lazily('@fastify/ajv-compiler'),
    buildSerializer: lazily('@fastify/fast-json-stringify-compiler'),
  } as CompilersFactory;
}

/**
 * Builds the Fastify app without listening. Only the process entry listens; tests use
 * `app.inject` or listen on an ephemeral port.
 */
export async function buildApp(config: Config, deps: Deps): Promise<App> {
  const app: App = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new RequestLogs(),
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
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    genReqId: () => crypto.randomUUID(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    schemaController: { compilersFactory: lazyFastifyCompilers() },
  }).withTypeProvider<ZodTypeProvider>();

  // The one choice of contract revision at the HTTP face: which routes exist, their credential,
  // how OpenAPI and the manifest name it, and which guide is served.
  const face = config.CONTRACT_REVISION === 'A' ? revisionAFace : revisionBFace;
  // First of all hooks: the request's span is the parent of everything the request does.
  installObservability(app, deps);
  const counters = new OperatorCounters();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installIdentity(app, deps);
  await app.register(securityHeadersPlugin, { config });
  // After the identity hook: the per-account bucket reads the verified wallet or key's account.
  await app.register(rateLimitPlugin, { config });
  await app.register(documentationPlugin, { config, openapiComponents: face.openapiComponents });
  await app.register(paymentSignatureCapPlugin);
  await app.register(corsPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(operatorCountersPlugin, { counters });
  await registerRoutes(app, config, face, deps);
  registerMetricsRoute(app, config, deps.telemetry, deps.adminToken);
  // People's pages: the catalogue's item pages, their style sheet, and the operator console.
  registerStylesheet(app);
  await app.register(cataloguePages, { deps });
  await app.register(adminPlugin, { deps, counters });
  return app;
}
