import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';

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
        ...(openapiComponents && { components: openapiComponents }),
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
  },
  { name: 'documentation' },
);
