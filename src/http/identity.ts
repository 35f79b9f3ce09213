import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { requireAgent } from '../domain/accounts/require-agent.js';
import type { Agent } from '../domain/accounts/accounts.js';
import { agentByApiKey } from '../domain/auth/api-keys.js';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified wallet of an `id402` route (lower-case 0x hex). */
    wallet?: string;
    /** The caller's account on account-scoped routes (set by the identity hook). */
    agent?: Agent;
  }
}

/**
 * Enforces each route's declared credential (`config.auth`, see route-meta.ts) in one place:
 * `id402` answers the zero-value prompt or verifies the signed proof, then loads the caller's
 * agent (404 `agent_not_found` for a wallet that never paid, unless the route declares
 * `anyWallet`). `key` (Revision A) loads the agent of the `X-API-KEY` header, 401 `unauthorized`
 * when it is missing or not a current key (the key is never logged). `paid402` routes verify
 * inside their operation (the offer depends on the body); `public` routes pass. Runs after
 * validation, so bad input is a 400 before any prompt.
 */
export function installIdentity(app: FastifyInstance, deps: Pick<Deps, 'x402' | 'sql'>): void {
  // a callback hook, so a route without a credential to check (public, paid402) waits for no promise
  app.addHook('preHandler', (request, _reply, done) => {
    const { auth, anyWallet } = request.routeOptions.config;
    if (auth !== 'key' && auth !== 'id402') {
      done();
      return;
    }
    identify(deps, request, auth, anyWallet).then(() => done(), done);
  });
}

async function identify(
  deps: Pick<Deps, 'x402' | 'sql'>,
  request: FastifyRequest,
  auth: 'key' | 'id402',
  anyWallet: boolean | undefined,
): Promise<void> {
  if (auth === 'key') {
    request.agent = await agentOfKey(deps, request);
    return;
  }
  try {
    const wallet = await deps.x402.identity(request);
    request.wallet = wallet;
    if (!anyWallet) request.agent = await requireAgent(deps.sql, wallet);
  } catch (e) {
    // A route that judges its body after identity (`attachValidation`: the answer to bad input
    // depends on the account) still answers bad input with 400 before any prompt.
    if (request.validationError) throw request.validationError;
    throw e;
  }
}

async function agentOfKey(deps: Pick<Deps, 'sql'>, request: FastifyRequest): Promise<Agent> {
  const raw = request.headers['x-api-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.trim() === '') {
    throw new AppError('unauthorized', {
      message: 'send your API key in the X-API-KEY header (register or rotate-key issues one)',
    });
  }
  const agent = await agentByApiKey(deps.sql, key);
  if (!agent) {
    throw new AppError('unauthorized', {
      message:
        'this API key is not valid (a rotated key stops working); rotate-key issues a new one',
    });
  }
  return agent;
}

/** The caller's agent on an account-scoped route (a route without the hook's guarantee is a bug). */
export function agentOf(request: FastifyRequest): Agent {
  if (!request.agent)
    throw new Error(
      `route ${request.routeOptions.url} has no agent: declare auth 'id402' or 'key'`,
    );
  return request.agent;
}

/** The verified wallet on an `id402` route, registered or not. */
export function walletOf(request: FastifyRequest): string {
  if (!request.wallet)
    throw new Error(`route ${request.routeOptions.url} has no wallet: declare auth 'id402'`);
  return request.wallet;
}
