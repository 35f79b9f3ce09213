import { describe, expect, it } from 'vitest';
import { CatalogClient, MarketplaceError } from '../../src/client/index.js';

/** The typed client parses every answer with the shared wire schemas, never trusting its shape. */
const answering = (body: unknown, status = 200) =>
  new CatalogClient({
    baseUrl: 'http://marketplace.test',
    fetch: async () =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      }),
  });

const item = {
  id: '2f1c7a4e-8b9d-4c3e-9f10-1a2b3c4d5e6f',
  status: 'active',
  metadata: { title: 'CSV converter', prices: { USDC: 2 } },
  available_chains: ['base'],
};

describe('typed client and the wire schemas', () => {
  it('returns answers that fit the schema', async () => {
    expect(await answering([{ ...item, similarity: 4.2 }]).search({ q: 'csv' })).toEqual([
      { ...item, similarity: 4.2 },
    ]);
    expect(await answering(item).getItem(item.id)).toEqual(item);
  });

  it('refuses an answer that does not fit: unexpected_response, not a silently wrong object', async () => {
    const bad = answering([{ ...item, similarity: 9 }]).search({ q: 'csv' });
    await expect(bad).rejects.toBeInstanceOf(MarketplaceError);
    await expect(bad).rejects.toMatchObject({ code: 'unexpected_response' });
    await expect(
      answering({ ...item, available_chains: ['solana'] }).getItem(item.id),
    ).rejects.toMatchObject({ code: 'unexpected_response' });
  });

  it('keeps the service error code of a non-2xx answer', async () => {
    await expect(
      answering({ error: 'item_not_found', message: 'No active item with this id.' }, 404).getItem(
        item.id,
      ),
    ).rejects.toMatchObject({ status: 404, code: 'item_not_found' });
  });
});
