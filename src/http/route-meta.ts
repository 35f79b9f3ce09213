import type { FastifySchema } from 'fastify';

/**
 * Credential a route needs, as the spec's endpoint tables name it: `public`, `id402` (zero-value
 * x402 identity), `paid402` (paid x402), `key` (Revision A API key) or `operator` (the console
 * and operator API, src/http/admin/, never in OpenAPI). Every route states it in
 * `config.auth`; the OpenAPI document and the skills manifest read it from there.
 */
export type RouteAuth = 'public' | 'id402' | 'paid402' | 'key' | 'operator';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** USDC price shown in the manifest for paid routes (e.g. "0.01" or "item price"). */
    price?: string;
    /**
     * `id402` only: any verified wallet may call, registered or not (platform feedback, spec
     * 5.2 rule 5's one exception); the handler reads `walletOf(request)` and never provisions.
     */
    anyWallet?: boolean;
    /**
     * Documents a body the handler reads itself (multipart uploads) for OpenAPI and the manifest,
     * per content type. Fastify does not validate it; the domain does, with stable codes.
     */
    docBody?: Record<string, import('zod').ZodType>;
    /**
     * Rate-limit role beyond `auth` (src/http/plugins/rate-limit.ts): `challenge` counts in the
     * per-address challenge bucket; `signed` verifies a signature carried in its body (Revision A
     * registration, key rotation, linking), so it is refused once its address failed too often.
     */
    throttle?: 'challenge' | 'signed';
    /** A paid route's payment kind in `marketplace_payments_total` (identity routes: `identity`). */
    payment?: 'purchase' | 'fee';
    /**
     * Domain error codes this route answers beyond those its request schemas, credential and
     * body already bring (src/http/error-docs.ts derives those); documented in OpenAPI.
     */
    errors?: import('../errors.js').ErrorCode[];
  }
}

/** Shared OpenAPI metadata for the route's schema. */
export function describe<const S extends FastifySchema>(
  tag: string,
  summary: string,
  extra: S = {} as S,
): S & { tags: string[]; summary: string } {
  return { tags: [tag], summary, ...extra };
}
