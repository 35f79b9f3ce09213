import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { AppError, type ErrorCode } from '../../errors.js';

/**
 * Answers that mean "this credential is not valid": a bad or missing API key, a payment or
 * identity signature that did not verify, an authorization replayed for another request (409),
 * a proof signed by a wallet that has no account (404), a SIWE proof that failed. Each counts
 * against the caller's address in the small failure bucket.
 */
const CREDENTIAL_FAILURES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'unauthorized',
  'payment_verification_failed',
  'authorization_already_used',
  'agent_not_found',
  'invalid_signature',
  'invalid_challenge',
  'challenge_expired',
  'challenge_used',
  'challenge_action_mismatch',
]);

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts `n` more requests of this unsigned request's address (a JSON-RPC batch on `/mcp` is
     * as many requests as it holds messages); throws 429 `rate_limited` once past the limit.
     */
    countUnsigned(request: FastifyRequest, n: number): Promise<void>;
  }
}

/** Probes and CORS preflights are never counted. */
const UNCOUNTED_PATHS = new Set(['/api/v1/health']);

const headerOf = (request: FastifyRequest, name: string) => {
  const v = request.headers[name];
  return typeof v === 'string' ? v !== '' : Array.isArray(v) && v.length > 0;
};

/**
 * A request that presents a credential to a route that checks one: a signed payment or identity
 * proof, an API key, or a signed SIWE challenge in the body. A credential on a public route is
 * not one (searching with a junk PAYMENT-SIGNATURE stays in the unsigned bucket).
 */
function presentsCredential(request: FastifyRequest): boolean {
  const { auth, throttle } = request.routeOptions.config;
  if (throttle === 'signed') return true;
  if (auth === 'key') return headerOf(request, 'x-api-key');
  if (auth === 'id402' && headerOf(request, 'sign-in-with-x')) return true;
  if (auth === 'id402' || auth === 'paid402') return headerOf(request, 'payment-signature');
  return false;
}

function limited(ttlSeconds: number, message: string): AppError {
  const retryAfter = Math.max(1, Math.ceil(ttlSeconds));
  return new AppError('rate_limited', {
    message: `${message}; retry after ${retryAfter} s`,
    retry_after: retryAfter,
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/**
 * Rate limits with @fastify/rate-limit, one bucket per concern (docs/abuse-and-web-safety.md):
 * - unsigned: per client address, every request without a credential (public routes, 402 prompts);
 * - challenge: per client address, Revision A SIWE challenges on top of the unsigned bucket;
 * - account: per verified wallet (Revision B) or API key's account (Revision A), after the
 *   identity hook, so a request whose credential verifies is never charged to its address;
 * - failures: per client address, counted only when a credential fails; once full, every signed
 *   or keyed request of that address is refused before its credential is checked.
 * Counters live in process memory: each replica counts on its own.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, { config }: { config: Config }) => {
    await app.register(rateLimit, { global: false });
    const window = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
    const perAddress = (max: number) => app.createRateLimit({ max, timeWindow: window });
    const unsigned = perAddress(config.RATE_LIMIT_PUBLIC_MAX);
    const challenges = perAddress(config.RATE_LIMIT_CHALLENGE_MAX);
    const failures = perAddress(config.RATE_LIMIT_FAILURE_MAX);
    const accounts = app.createRateLimit({
      max: config.RATE_LIMIT_ACCOUNT_MAX,
      timeWindow: window,
      keyGenerator: (request) => request.wallet ?? request.agent?.id ?? request.ip,
    });

    app.decorate('countUnsigned', async (request: FastifyRequest, n: number) => {
      for (let i = 0; i < n; i++) {
        const state = await unsigned(request);
        if (!state.isAllowed && state.isExceeded)
          throw limited(state.ttlInSeconds, 'too many requests from this address');
      }
    });

    app.addHook('onRequest', async (request) => {
      // the route's pattern, not the raw URL: no split per request, and `/health/` is the same route
      if (request.method === 'OPTIONS' || UNCOUNTED_PATHS.has(request.routeOptions.url ?? ''))
        return;
      if (presentsCredential(request)) {
        // A peek: the bucket is full once `max` failures are counted (only failures count).
        const state = await failures(request, { increment: false });
        if (!state.isAllowed && state.remaining === 0) {
          throw limited(state.ttlInSeconds, 'too many failed credentials from this address');
        }
        return;
      }
      const state = await unsigned(request);
      if (!state.isAllowed && state.isExceeded) {
        throw limited(state.ttlInSeconds, 'too many requests from this address');
      }
      if (request.routeOptions.config.throttle === 'challenge') {
        const c = await challenges(request);
        if (!c.isAllowed && c.isExceeded) {
          throw limited(c.ttlInSeconds, 'too many challenges from this address');
        }
      }
    });

    // After the identity hook (registered before this plugin): the wallet or account is known.
    // a callback hook, so a request with no account yet (a paid completion) waits for no promise
    app.addHook('preHandler', (request, _reply, done) => {
      if (!request.wallet && !request.agent) {
        done();
        return;
      }
      accounts(request).then((state) => {
        if (!state.isAllowed && state.isExceeded)
          done(limited(state.ttlInSeconds, 'too many requests for this account'));
        else done();
      }, done);
    });

    app.addHook('onError', async (request, _reply, error) => {
      if (error instanceof AppError && CREDENTIAL_FAILURES.has(error.code)) {
        await failures(request);
      }
    });
  },
  { name: 'rate-limit' },
);
