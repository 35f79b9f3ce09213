import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSaleItem } from '../helpers/items.js';
import {
  keyedBuy,
  registerAgent,
  signedChallenge,
  type Registered,
} from '../helpers/revision-a.js';
import { startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Revision A as a hostile second account: every keyed route answers another account's item,
 * order or review exactly as it answers an id that does not exist (404, never 403, no hint), and a
 * rotated key opens no keyed route at all, whichever the route table holds.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ CONTRACT_REVISION: 'A' });
});
afterAll(() => t?.close());

const key = (r: Registered) => ({ 'x-api-key': r.apiKey });
let n = 0;
/** Each call from its own address: a refused key spends no shared failure budget. */
const from = () => `10.9.${Math.floor(n / 250)}.${(n++ % 250) + 1}`;

/** A sale with a rating on it: the seller, the buyer, the item, the order and the feedback id. */
async function ratedSale() {
  const seller = await registerAgent(t.app);
  const buyer = await registerAgent(t.app);
  const { itemId } = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.wallet.address,
    priceUsdc: 2,
  });
  const order = await keyedBuy(t.app, buyer, itemId);
  const rated = await t.app.inject({
    method: 'POST',
    url: `/api/v1/items/${itemId}/feedback`,
    headers: key(buyer),
    payload: { rating: 7 },
  });
  expect(rated.statusCode).toBe(201);
  return { seller, buyer, itemId, orderId: order.order_id, feedbackId: rated.json().feedback_id };
}

describe('another account’s resources', () => {
  it('are 404 exactly as a missing id is, on every keyed route that takes an id', async () => {
    const s = await ratedSale();
    const stranger = await registerAgent(t.app);
    const missing = crypto.randomUUID();
    const cases: Array<{
      method: 'GET' | 'POST' | 'DELETE';
      url: (id: string) => string;
      id: string;
    }> = [
      { method: 'DELETE', url: (id) => `/api/v1/items/${id}`, id: s.itemId },
      { method: 'GET', url: (id) => `/api/v1/orders/${id}/download`, id: s.orderId },
      { method: 'GET', url: (id) => `/api/v1/orders/${id}/invoice`, id: s.orderId },
      { method: 'POST', url: (id) => `/api/v1/feedback/${id}/ack`, id: s.feedbackId },
    ];
    // the seller's items are not the buyer's, the buyer's order is not the seller's
    for (const intruder of [stranger, s.seller, s.buyer]) {
      for (const c of cases) {
        const owner =
          c.url(c.id).includes('/items/') || c.url(c.id).includes('/feedback/')
            ? s.seller
            : s.buyer;
        if (intruder === owner) continue;
        const theirs = await t.app.inject({
          method: c.method,
          url: c.url(c.id),
          headers: key(intruder),
        });
        const none = await t.app.inject({
          method: c.method,
          url: c.url(missing),
          headers: key(intruder),
        });
        expect(theirs.statusCode, `${c.method} ${c.url(c.id)}`).toBe(404);
        expect(theirs.json()).toEqual(none.json());
      }
    }
    // the intruders changed nothing: the listing is active, the review unread
    const [item] = await t.runtime.deps.sql<{ status: string }[]>`
      select status from items where id = ${s.itemId}`;
    expect(item!.status).toBe('active');
    const inbox = await t.app.inject({
      url: '/api/v1/feedback/inbox?peek=true',
      headers: key(s.seller),
    });
    expect(inbox.json().items).toEqual([
      expect.objectContaining({ feedback_id: s.feedbackId, was_unread: true }),
    ]);
    // lists are the caller's own
    for (const url of [
      '/api/v1/seller/items',
      '/api/v1/feedback/inbox?peek=true',
      '/api/v1/seller/stats',
    ]) {
      const res = await t.app.inject({ url, headers: key(stranger) });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain(s.itemId);
      expect(res.body, url).not.toContain(s.feedbackId);
    }
    const payouts = await t.app.inject({ url: '/api/v1/seller/payouts', headers: key(stranger) });
    expect(payouts.body).not.toContain(s.seller.wallet.address);
  });
});

describe('a rotated key', () => {
  it('opens no keyed route of the route table; the new key opens them all', async () => {
    const s = await ratedSale();
    const id = crypto.randomUUID();
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/v1/'));
    // bodies that pass validation where it runs before the credential
    const bodies: Record<string, unknown> = {
      '/api/v1/buy': { item_id: id },
      '/api/v1/auth/link-wallet': await signedChallenge(t.app, newWallet(), 'link-wallet'),
      '/api/v1/feedback/platform': { text: 'keyed or not?' },
    };
    const call = (r: { method: string; url: string }, headers: Record<string, string>) =>
      t.app.inject({
        method: r.method as 'GET',
        url: r.url.replace(':uuid', id).replace(':address', s.seller.wallet.address),
        headers,
        remoteAddress: from(),
        ...(r.method !== 'GET' && r.method !== 'HEAD' && { payload: bodies[r.url] ?? {} }),
      });
    // keyed: the routes that answer 401 without a key
    const keyed = [];
    for (const r of routes) if ((await call(r, {})).statusCode === 401) keyed.push(r);
    expect(keyed.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/buy',
        'DELETE /api/v1/items/:uuid',
        'GET /api/v1/orders/:uuid/download',
        'GET /api/v1/seller/payouts',
        'POST /api/v1/feedback/:uuid/ack',
        'POST /api/v1/auth/link-wallet',
        'POST /api/v1/feedback/platform',
      ]),
    );
    const old = s.seller.apiKey;
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/rotate-key',
      payload: await signedChallenge(t.app, s.seller.wallet, 'rotate-key'),
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().api_key as string;
    for (const r of keyed) {
      const refused = await call(r, { 'x-api-key': old });
      expect(refused.statusCode, `${r.method} ${r.url} with the rotated key`).toBe(401);
      const served = await call(r, { 'x-api-key': fresh });
      expect(served.statusCode, `${r.method} ${r.url} with the new key`).not.toBe(401);
    }
  });
});
