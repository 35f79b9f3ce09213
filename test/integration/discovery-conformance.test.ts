import {
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf, uniqueProject } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent } from '../helpers/revision-a.js';
import { startSellingApp, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { promptOf } from '../helpers/wallets.js';

/**
 * Every kind of 402 prompt, read as the official x402 catalogue code reads it: the `bazaar` entry
 * passes @x402/extensions' validators (info against its JSON Schema, and the spec's shape rules),
 * and the resource's service metadata survives the catalogue's sanitising unchanged.
 */

type Prompt = ReturnType<typeof promptOf> & {
  resource: { description?: string; serviceName?: string; tags?: string[]; iconUrl?: string };
  extensions?: Record<string, unknown>;
};

function expectCatalogued(prompt: Prompt, opts: { bazaar: boolean }) {
  const kept = sanitizeResourceServiceMetadata(prompt.resource);
  expect(kept).toEqual({
    serviceName: prompt.resource.serviceName,
    ...(prompt.resource.tags && { tags: prompt.resource.tags }),
    ...(prompt.resource.iconUrl && { iconUrl: prompt.resource.iconUrl }),
  });
  expect(prompt.resource.serviceName).toBe('Code artifact marketplace');
  expect(prompt.resource.iconUrl).toBe('https://cdn.marketplace.example/icon.png');
  if (!opts.bazaar) return;
  const bazaar = prompt.extensions?.bazaar as DiscoveryExtension;
  expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
  expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({
    valid: true,
  });
  // the schema describes the body and the answer, not just "an object"
  const input = bazaar.schema.properties.input.properties as Record<string, { type?: string }>;
  expect(input.body).toMatchObject({ type: 'object', properties: expect.any(Object) });
  const output = bazaar.schema.properties.output?.properties as Record<string, unknown>;
  expect(output.example).toMatchObject({ type: 'object', required: expect.any(Array) });
}

describe.each(['B', 'A'] as const)('Revision %s prompts', (revision) => {
  let t: SellingContext;
  beforeAll(async () => {
    t = await startSellingApp({
      CONTRACT_REVISION: revision,
      SERVICE_ICON_URL: 'https://cdn.marketplace.example/icon.png',
    });
  });
  afterAll(() => t.close());
  /** A listing payable on some chain (Revision A: of a registered seller with a linked wallet). */
  const saleItem = async (opts: { title: string; techStack?: string }) => {
    const seller = revision === 'A' ? (await registerAgent(t.app)).wallet.address : undefined;
    return createSaleItem(t.runtime.deps, { ...opts, ...(seller && { sellerAddress: seller }) });
  };

  it('the purchase prompt: title as description, stack as tags, a valid bazaar entry', async () => {
    // the longest title a listing may have, and 5 tags of 32 characters after two left out
    const title = `Redis token bucket rate limiter ${'é'.repeat(200)}`.slice(0, 200);
    const long = (w: string) => w.repeat(32);
    const item = await saleItem({
      title,
      techStack: `TypeScript, typescript, a-very-long-stack-name-of-more-than-32, ${['r', 'e', 'n', 'j'].map(long).join(', ')}, Docker`,
    });
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/items/${item.itemId}/acquire` });
    expect(res.statusCode).toBe(402);
    const prompt = promptOf(res) as Prompt;
    // the header (what clients decode) carries every extension, under its 8 KB budget
    expect(res.json()).toEqual(prompt);
    expect(String(res.headers['payment-required']).length).toBeLessThan(8192);
    expect(prompt.resource.description).toBe(title);
    expect(prompt.resource.tags).toEqual(['TypeScript', ...['r', 'e', 'n', 'j'].map(long)]);
    expectCatalogued(prompt, { bazaar: true });
    // a buyer may sign in instead (issue 27), in the same header
    expect(prompt.extensions!['sign-in-with-x']).toBeDefined();
    expect((prompt.extensions!.bazaar as { routeTemplate?: string }).routeTemplate).toBe(
      '/api/v1/items/:uuid/acquire',
    );
  });

  if (revision === 'B') {
    it('the listing-fee prompt carries a valid bazaar entry for the multipart upload', async () => {
      const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/items', ...req });
      expect(res.statusCode).toBe(402);
      const prompt = promptOf(res) as Prompt;
      expect(prompt.resource.tags).toEqual(['listing-fee', 'sell-code']);
      expectCatalogued(prompt, { bazaar: true });
      const bazaar = prompt.extensions!.bazaar as DiscoveryExtension;
      expect(bazaar.info.input).toMatchObject({ method: 'POST', bodyType: 'form-data' });
    });

    it('an identity prompt names the service', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/inbox' });
      expect(res.statusCode).toBe(402);
      expectCatalogued(promptOf(res) as Prompt, { bazaar: false });
    });
  } else {
    it('the keyed purchase prompt (POST /api/v1/buy) carries a valid bazaar entry', async () => {
      const item = await saleItem({ title: 'Keyed buy' });
      const buyer = await registerAgent(t.app);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/buy',
        headers: { 'x-api-key': buyer.apiKey },
        payload: { item_id: item.itemId },
      });
      expect(res.statusCode).toBe(402);
      const prompt = promptOf(res) as Prompt;
      expect(res.json()).toEqual(prompt);
      expect(prompt.resource.description).toBe('Keyed buy');
      expectCatalogued(prompt, { bazaar: true });
    });
  }
});
