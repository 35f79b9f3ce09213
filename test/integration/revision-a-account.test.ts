import { formatUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSaleItem } from '../helpers/items.js';
import { keyedBuy, registerAgent, type Registered } from '../helpers/revision-a.js';
import { startSellingApp, type SellingContext } from '../helpers/selling.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ CONTRACT_REVISION: 'A', PLATFORM_FEEDBACK_DAILY_LIMIT: '2' });
});
afterAll(() => t?.close());

const key = (r: Registered) => ({ 'x-api-key': r.apiKey });

async function sale(price = 2) {
  const seller = await registerAgent(t.app);
  const buyer = await registerAgent(t.app);
  const { itemId } = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.wallet.address,
    priceUsdc: price,
  });
  const order = await keyedBuy(t.app, buyer, itemId);
  return { seller, buyer, itemId, order };
}

describe('seller stats and payouts with the key', () => {
  it('stats count the sale; payouts are keyed by the linked wallet, wallet_missing elsewhere', async () => {
    const { seller } = await sale(4);
    for (const url of ['/api/v1/seller/stats', '/api/v1/seller/payouts']) {
      expect((await t.app.inject(url)).statusCode, url).toBe(401);
    }
    const stats = await t.app.inject({ url: '/api/v1/seller/stats', headers: key(seller) });
    expect(stats.statusCode).toBe(200);
    expect(stats.json()).toMatchObject({
      wallet_address: seller.wallet.address,
      items: { active: 1, total: 1 },
    });
    expect(stats.json().recent_sales).toHaveLength(1);

    const res = await t.app.inject({ url: '/api/v1/seller/payouts', headers: key(seller) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['payouts']);
    const base = body.payouts.find((p: { chain: string }) => p.chain === 'base');
    const polygon = body.payouts.find((p: { chain: string }) => p.chain === 'polygon');
    expect(base).toMatchObject({
      status: 'ok',
      seller_wallet: seller.wallet.address,
      currency: 'USDC',
    });
    expect(BigInt(base.pending_raw)).toBeGreaterThan(0n);
    // the live payouts script reads `amount`: the seller's pending share, human-readable
    expect(base.amount).toBe(formatUnits(BigInt(base.pending_raw), 6));
    expect(Number(base.amount)).toBeGreaterThan(3.7); // 95 % of a 4 USDC sale
    expect(polygon.amount).toBe('0');
    expect(BigInt(base.pending_gross_raw)).toBeGreaterThanOrEqual(BigInt(base.pending_raw));
    expect(polygon).toMatchObject({ status: 'wallet_missing', seller_wallet: null });
  });
});

describe('feedback with the key', () => {
  it('a buyer rates, the seller reads the inbox and acknowledges; others get 403 / 404', async () => {
    const { seller, buyer, itemId } = await sale();
    const url = `/api/v1/items/${itemId}/feedback`;
    expect((await t.app.inject({ method: 'POST', url, payload: { rating: 9 } })).statusCode).toBe(
      401,
    );
    const notBuyer = await t.app.inject({
      method: 'POST',
      url,
      headers: key(seller),
      payload: { rating: 1 },
    });
    expect(notBuyer.statusCode).toBe(403);
    expect(notBuyer.json()).toMatchObject({ error: 'not_buyer' });
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: key(buyer),
      payload: { rating: 9 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ feedback_id: expect.any(String), moderation_status: 'approved' });
    const again = await t.app.inject({
      method: 'POST',
      url,
      headers: key(buyer),
      payload: { rating: 8 },
    });
    expect(again.json()).toMatchObject({ error: 'feedback_already_submitted' });

    const peek = await t.app.inject({
      url: '/api/v1/feedback/inbox?peek=true',
      headers: key(seller),
    });
    expect(peek.statusCode).toBe(200);
    const [row] = peek.json().items;
    expect(row).toMatchObject({ item_id: itemId, rating: 9, was_unread: true });
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/v1/feedback/${row.feedback_id}/ack`,
      headers: key(buyer),
    });
    expect(foreign.statusCode).toBe(404);
    for (let i = 0; i < 2; i++) {
      const ack = await t.app.inject({
        method: 'POST',
        url: `/api/v1/feedback/${row.feedback_id}/ack`,
        headers: key(seller),
      });
      expect(ack.statusCode).toBe(204);
    }
    const after = await t.app.inject({ url: '/api/v1/feedback/inbox', headers: key(seller) });
    expect(after.json().items).toEqual([]);
  });

  it('platform feedback is 201, then 429 with a Retry-After of one day past the limit', async () => {
    const agent = await registerAgent(t.app);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/feedback/platform',
        headers: key(agent),
        payload: { text: 'Search could rank exact stacks higher.' },
      });
    for (let i = 0; i < 2; i++) {
      const ok = await send();
      expect(ok.statusCode).toBe(201);
      expect(ok.json()).toEqual({ feedback_id: expect.any(String) });
    }
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('86400');
    expect(limited.json()).toMatchObject({ error: 'rate_limited' });
    const empty = await t.app.inject({
      method: 'POST',
      url: '/api/v1/feedback/platform',
      headers: key(agent),
      payload: { text: '' },
    });
    expect(empty.statusCode).toBe(400);
  });
});
