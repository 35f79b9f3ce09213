import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import type { Pay } from '../domain/payments/fulfilment.js';
import type { PaidOffer } from '../x402/guard.js';

/**
 * The one HTTP helper between a domain offer and x402: a request without `PAYMENT-SIGNATURE`
 * ends with the offer's 402 prompt; a signed one comes back as a verified payment for the domain
 * to complete (src/x402/guard.ts does both).
 */
export function payFor(deps: Pick<Deps, 'x402'>, request: FastifyRequest): Pay {
  return Object.assign((offer: PaidOffer) => deps.x402.paid(request, offer), {
    signIn: (offer: PaidOffer) => deps.x402.signIn(request, offer),
    signInChallenge: () => deps.x402.signInChallenge(request),
    claimed: (resource?: string) => deps.x402.claimed(request, resource),
  });
}
