import { HTTPFacilitatorClient } from '@x402/core/server';
import { withBazaar } from '@x402/extensions/bazaar';
import type { FastifyInstance } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainFacilitator } from '../../src/chain/chain-facilitator.js';
import { Relayer } from '../../src/chain/clients.js';
import { paymentNetworks } from '../../src/x402/networks.js';
import { buildFacilitatorServer } from '../../tools/chain/facilitator-server.js';
import { freePort, startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * `npm run facilitator` answers the facilitator discovery API over the marketplace's catalogue:
 * the official bazaar client (`withBazaar(new HTTPFacilitatorClient(...))`) lists and searches
 * the listings as paid resources, each with its prompt's accepts and metadata.
 */
let t: ListeningTestContext;
let server: FastifyInstance;
let client: ReturnType<typeof withBazaar<HTTPFacilitatorClient>>;
let itemUrl: string;

beforeAll(async () => {
  t = await startListeningTestApp();
  const item = await createSaleItem(t.runtime.deps, {
    title: 'Redis token bucket rate limiter middleware',
    techStack: 'TypeScript, Redis',
    priceUsdc: 2,
  });
  itemUrl = `${t.base}/api/v1/items/${item.itemId}/acquire`;
  // no settlement happens here: the relayer's RPC is never asked
  const relayer = new Relayer(privateKeyToAccount(`0x${'11'.repeat(32)}`), {
    base: 'http://127.0.0.1:9',
    polygon: 'http://127.0.0.1:9',
  });
  server = buildFacilitatorServer(
    new ChainFacilitator({
      networks: paymentNetworks(t.runtime.deps.config),
      relayer,
      confirmationTimeoutMs: 1_000,
      eip6492AllowedFactories: [],
    }),
    { catalogueUrl: t.base },
  );
  const port = await freePort();
  await server.listen({ port, host: '127.0.0.1' });
  client = withBazaar(new HTTPFacilitatorClient({ url: `http://127.0.0.1:${port}` }));
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('facilitator discovery over the catalogue', () => {
  it('lists the active listings as paid resources with their prompt’s accepts and metadata', async () => {
    const list = await client.extensions.bazaar.listResources({ type: 'http', limit: 50 });
    expect(list.x402Version).toBe(2);
    const item = list.items.find((i) => i.resource === itemUrl)!;
    expect(item).toMatchObject({
      type: 'http',
      description: 'Redis token bucket rate limiter middleware',
      serviceName: 'Code artifact marketplace',
      tags: ['TypeScript', 'Redis'],
    });
    expect(item.accepts[0]).toMatchObject({ scheme: 'exact', amount: '2000000' });
    expect(item.extensions).toHaveProperty('bazaar');
    // the listing fee prompts only for a valid upload: a bare POST is no resource to catalogue
    expect(list.items.every((i) => i.resource.endsWith('/acquire'))).toBe(true);
    expect(list.pagination.total).toBe(list.items.length);
    const otherNetwork = await client.extensions.bazaar.listResources({ network: 'eip155:1' });
    expect(otherNetwork.items).toEqual([]);
  });

  it('searches the catalogue by task', async () => {
    const found = await client.extensions.bazaar.search({ query: 'rate limiter redis' });
    expect(found.resources.map((r) => r.resource)).toContain(itemUrl);
  });
});
