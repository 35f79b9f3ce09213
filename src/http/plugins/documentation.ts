import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { ErrorSchema } from '../../wire/errors.js';
import { PaymentRequiredSchema } from '../../wire/discovery.js';
import { ERROR_CATALOG } from '../../errors.js';
import { routeErrors } from '../error-docs.js';
import type { RouteAuth } from '../route-meta.js';

export const API_VERSION = '2.4.0';

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: Array<{ method: string; url: string; hidden: boolean }>;
  }
}

/**
 * The route table (every registered route, for the manifest/OpenAPI agreement test and operators'
 * debugging) and the OpenAPI document built from the routes' zod schemas and route config.
 */
export const documentationPlugin = fp(
  async (
    app: FastifyInstance,
    { config, openapiComponents }: { config: Config; openapiComponents?: Record<string, unknown> },
  ) => {
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

    // The document's shared schemas, converted from zod when the document is first asked for
    // (@fastify/swagger reads `components` then), not at every start (issue 25: ~10 ms of the
    // main thread); the first /openapi.json pays it once, with the routes' own.
    let schemas: Record<string, unknown> | undefined;
    const components = {
      ...openapiComponents,
      get schemas() {
        return (schemas ??= {
          PaymentRequired: jsonSchema(PaymentRequiredSchema),
          Error: jsonSchema(ErrorSchema),
        });
      },
    };
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Code artifact marketplace',
          version: API_VERSION,
          description:
            'Agents buy and sell code archives paid in USDC over x402 v2. Start at /api/v1/skills.',
          contact: { name: config.SERVICE_NAME, url: `${config.PUBLIC_BASE_URL}/agent-usage` },
          // read by agent discovery clients (OpenAPI extension field)
          ...({ 'x-guidance': guidance(config.PUBLIC_BASE_URL) } as object),
        },
        servers: [{ url: config.PUBLIC_BASE_URL }],
        components: components as object,
      },
      transform: (input) => {
        const out = jsonSchemaTransform(input);
        const cfg = input.route.config ?? {};
        const auth: RouteAuth = cfg.auth ?? 'public';
        const docBody = cfg.docBody;
        const source = (input.schema ?? {}) as Record<string, unknown>;
        const responses = { ...(out.schema.response as Record<string, unknown> | undefined) };
        const errors = routeErrors({
          auth,
          paid: Boolean(cfg.price),
          ...(cfg.anyWallet && { anyWallet: true }),
          ...(cfg.errors && { errors: cfg.errors }),
          request: [source.params, source.querystring, source.body] as never[],
          hasBody: Boolean(source.body ?? docBody),
        });
        for (const [status, codes] of errors) {
          responses[status] = errorResponse(status, codes);
        }
        const payment = cfg.price ? paymentInfo(cfg.price, config) : undefined;
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
            response: responses,
            'x-auth': auth,
            security: SECURITY_OF[auth],
            ...(payment && { 'x-payment-info': payment }),
            ...(cfg.price && { 'x-price-usdc': cfg.price }),
          },
        } as ReturnType<typeof jsonSchemaTransform>;
      },
    });
  },
  { name: 'documentation' },
);

const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
  });
  return rest;
};

/** Each credential's security requirement (the schemes come from the face's components). */
const SECURITY_OF: Record<RouteAuth, Array<Record<string, string[]>>> = {
  public: [],
  // the payment is the credential: `x-payment-info` marks the route
  paid402: [],
  id402: [{ siwx: [] }, { x402Identity: [] }],
  key: [{ apiKey: [] }],
  // operator routes are hidden from OpenAPI (src/http/admin/)
  operator: [],
};

/** `x-payment-info` of a paid route: a fixed price, or a listing's price within the price limits. */
function paymentInfo(price: string, config: Config) {
  const fixed = /^\d+(\.\d+)?$/.test(price);
  return {
    price: fixed
      ? { mode: 'fixed', currency: 'USD', amount: price }
      : {
          mode: 'dynamic',
          currency: 'USD',
          min: String(config.MIN_PRICE_USDC),
          max: String(config.MAX_PRICE_USDC),
        },
    protocols: [{ x402: {} }],
    description: fixed
      ? `${price} USDC over x402 v2 (exact, base or polygon)`
      : `The listing's price in USDC over x402 v2 (exact, base or polygon)`,
  };
}

/** One status's error answer: its codes and what each means, from the catalog. */
function errorResponse(status: number, codes: string[]) {
  const error = {
    type: 'object',
    properties: {
      error: { type: 'string', enum: codes },
      message: { type: 'string' },
    },
    required: ['error', 'message'],
    additionalProperties: true,
  };
  const description = codes
    .map((c) => `${c}: ${ERROR_CATALOG[c as keyof typeof ERROR_CATALOG][1]}`)
    .join(' | ');
  if (codes.includes('payment_required')) {
    return {
      description: `Payment required: the x402 PaymentRequired prompt (also base64 in the PAYMENT-REQUIRED header). ${description}`,
      anyOf: [{ $ref: '#/components/schemas/PaymentRequired' }, error],
    };
  }
  return { description, ...error };
}

/** `info.x-guidance`: how an agent uses the marketplace, in one paragraph. */
function guidance(base: string): string {
  return [
    'Marketplace where AI agents buy and sell code archives (zip, tar.gz) for USDC over x402 v2 (exact scheme, base or polygon).',
    'To buy: GET /api/v1/search?q=<task> (free), read the item, then POST /api/v1/items/{uuid}/acquire: the 402 prompt lists the price per chain; sign one requirement and retry with PAYMENT-SIGNATURE and {"policy_accepted": true, "license_accepted": true}; the 200 answer carries the order id and signed download and invoice links (refetch them free with GET /api/v1/orders/{uuid}).',
    'To sell: POST /api/v1/items with the archive and metadata; the listing fee is a 402 prompt the same way; the archive is scanned before it goes on sale.',
    'Account routes (inbox, seller, agent, orders, feedback) need proof of the wallet: a SIGN-IN-WITH-X header answering the sign-in-with-x challenge of their 402 prompt, or a zero-value x402 signature made from that prompt (never settled).',
    `Errors are JSON { error, message } with stable codes listed per operation. Full guide: ${base}/agent-usage; manifest: ${base}/api/v1/skills.`,
  ].join(' ');
}
