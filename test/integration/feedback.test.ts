import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalAccount } from 'viem';
import { moderateCommand } from '../../src/domain/feedback/moderation.js';
import { activeListing, buy, callAs } from '../helpers/accounts.js';
import { startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ PLATFORM_FEEDBACK_DAILY_LIMIT: '5' });
});
afterAll(() => t?.close());

const sql = () => t.runtime.deps.sql;
const feedbackUrl = (itemId: string) => `/api/v1/items/${itemId}/feedback`;
const give = (wallet: LocalAccount, itemId: string, body: unknown) =>
  callAs(t, wallet, 'POST', feedbackUrl(itemId), body);
const inbox = (wallet: LocalAccount, query = '') =>
  callAs(t, wallet, 'GET', `/api/v1/inbox${query}`);
const moderate = async (...args: string[]) => {
  const { lines, ok } = await moderateCommand(sql(), args);
  return { rows: lines.map((l) => JSON.parse(l) as Record<string, unknown>), ok };
};
/**
 * Moves an order's completion time back (the only row these tests touch behind the API: time
 * cannot pass 30 days in a test).
 */
const ageOrder = (orderId: string, days: number) =>
  sql()`update orders set completed_at = now() - make_interval(days => ${days}) where id = ${orderId}`;

interface InboxBody {
  items: Array<{
    feedback_id: string;
    item_id: string;
    rating: number | null;
    text: string | null;
    created_at: string;
    was_unread: boolean;
  }>;
}

describe('item feedback', () => {
  it('a buyer rates once: a rating alone is approved at once, a second feedback is 409', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const itemId = await activeListing(t, seller);
    await buy(t, buyer, itemId);
    const res = await give(buyer, itemId, { rating: 8 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ feedback_id: expect.any(String), moderation_status: 'approved' });
    const again = await give(buyer, itemId, { text: 'second thoughts' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'feedback_already_submitted' });
    // a second purchase does not open a second feedback either
    await buy(t, buyer, itemId);
    expect((await give(buyer, itemId, { rating: 2 })).json().error).toBe(
      'feedback_already_submitted',
    );
  });

  it('strangers and non-buyers are refused: agent_not_found, not_buyer (also the seller)', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller);
    const stranger = await give(newWallet(), itemId, { rating: 5 });
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json().error).toBe('agent_not_found');
    // a wallet with an account (it bought something else) but no order on this item
    const other = newWallet();
    await buy(t, other, await activeListing(t, newWallet()));
    for (const wallet of [other, seller]) {
      const res = await give(wallet, itemId, { rating: 5 });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('not_buyer');
    }
    expect((await give(other, crypto.randomUUID(), { rating: 5 })).json().error).toBe('not_buyer');
  });

  it('only the most recent order counts, within the window (30 days from its completion)', async () => {
    const itemId = await activeListing(t, newWallet());
    const buyer = newWallet();
    const first = await buy(t, buyer, itemId);
    await ageOrder(first.order_id, 31);
    const late = await give(buyer, itemId, { rating: 9 });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toBe('feedback_window_expired');
    // a newer purchase reopens it; its age is what counts
    const second = await buy(t, buyer, itemId);
    await ageOrder(second.order_id, 29);
    expect((await give(buyer, itemId, { rating: 9 })).statusCode).toBe(201);
  });

  it('validates before any handshake: invalid_rating, invalid_text, text_too_long, empty_feedback', async () => {
    const url = feedbackUrl(crypto.randomUUID());
    const cases: Array<[unknown, string]> = [
      [{ rating: 11 }, 'invalid_rating'],
      [{ rating: -1 }, 'invalid_rating'],
      [{ rating: 7.5 }, 'invalid_rating'],
      [{ rating: '7' }, 'invalid_rating'],
      [{ rating: null }, 'invalid_rating'],
      [{ text: 42 }, 'invalid_text'],
      [{ text: 'bad\u0000byte' }, 'invalid_text'],
      [{ text: 'bell\u0007' }, 'invalid_text'],
      [{ text: 'x'.repeat(1001) }, 'text_too_long'],
      [{}, 'empty_feedback'],
      [{ text: '   ' }, 'empty_feedback'],
    ];
    for (const [body, code] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      // empty_feedback is decided after the handshake (the body itself is well-formed)
      if (code === 'empty_feedback') {
        expect(res.statusCode, JSON.stringify(body)).toBe(402);
        continue;
      }
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error, JSON.stringify(body)).toBe(code);
    }
    const itemId = await activeListing(t, newWallet());
    const buyer = newWallet();
    await buy(t, buyer, itemId);
    for (const body of [{}, { text: '  ' }, undefined]) {
      const res = await give(buyer, itemId, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('empty_feedback');
    }
    // 1000 characters (even outside the BMP) are fine; newlines and tabs too
    const ok = await give(buyer, itemId, { text: `${'😀'.repeat(998)}\n\t` });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().moderation_status).toBe('pending');
  });

  it('a misspelt key is refused (unknown_feedback_key) before the handshake, and the one feedback stays unspent', async () => {
    const itemId = await activeListing(t, newWallet());
    const buyer = newWallet();
    await buy(t, buyer, itemId);
    const unpaid = await t.app.inject({
      method: 'POST',
      url: feedbackUrl(itemId),
      payload: JSON.stringify({ rating: 9, reveiw: 'solid' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(unpaid.statusCode).toBe(400);
    expect(unpaid.json().error).toBe('unknown_feedback_key');
    expect(unpaid.json().message).toContain('reveiw');
    const typo = await give(buyer, itemId, { rating: 9, reveiw: 'solid' });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().error).toBe('unknown_feedback_key');
    const stored =
      await sql()`select count(*)::int as n from item_feedback where item_id = ${itemId}`;
    expect(stored[0]!.n).toBe(0);
    // the buyer sends it again, spelt right: text and rating are both kept
    const fixed = await give(buyer, itemId, { rating: 9, text: 'solid' });
    expect(fixed.statusCode).toBe(201);
    expect(fixed.json().moderation_status).toBe('pending');
  });

  it('other bodies refuse a key the contract does not name: 400 invalid_request before any prompt; client bodies still pass', async () => {
    const post = (url: string, body: unknown, method: 'POST' | 'PUT' = 'POST') =>
      t.app.inject({
        method,
        url,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const itemId = await activeListing(t, newWallet());
    const cases: Array<[string, unknown, 'POST' | 'PUT']> = [
      ['/api/v1/agent/username', { username: 'some_name_1', extra: 1 }, 'PUT'],
      ['/api/v1/agent/sales-chains', { sales_chains: ['base'], extra: 1 }, 'PUT'],
      [`/api/v1/items/${itemId}/acquire`, { chain: 'base', polcy_accepted: true }, 'POST'],
    ];
    for (const [url, body, method] of cases) {
      const res = await post(url, body, method);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toBe('invalid_request');
      expect(res.json().message, url).toMatch(/\((extra|polcy_accepted)\)$/);
    }
    // what the published clients send on acquire still gets the prompt (spec 2.3)
    for (const body of [
      { policy_accepted: true, license_accepted: true },
      { chain: 'base', currency: 'USDC', policy_accepted: true, license_accepted: true },
      { item_id: itemId, chain: 'base' },
    ]) {
      const res = await post(`/api/v1/items/${itemId}/acquire`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(402);
    }
  });

  it('ratings show publicly only from 5 approved ones, as avg with one decimal, never review text', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller, { title: 'Threshold rated parser' });
    const ratings = [10, 9, 9, 8];
    for (const r of ratings) {
      const buyer = newWallet();
      await buy(t, buyer, itemId);
      expect((await give(buyer, itemId, { rating: r })).statusCode).toBe(201);
    }
    // a rating with text waits for moderation and does not count yet
    const reviewer = newWallet();
    await buy(t, reviewer, itemId);
    const pending = await give(reviewer, itemId, { rating: 0, text: 'secret opinion of a buyer' });
    expect(pending.json().moderation_status).toBe('pending');
    const detail = async () => (await t.app.inject(`/api/v1/items/${itemId}`)).json();
    expect(await detail()).not.toHaveProperty('rating_avg');
    expect(await detail()).not.toHaveProperty('rating_count');

    const fifth = newWallet();
    await buy(t, fifth, itemId);
    await give(fifth, itemId, { rating: 7 });
    expect(await detail()).toMatchObject({ rating_avg: 8.6, rating_count: 5 });
    const found = (
      await t.app.inject(`/api/v1/search?q=${encodeURIComponent('threshold rated parser')}`)
    ).json() as Array<{ id: string; rating_avg?: number; rating_count?: number }>;
    expect(found.find((i) => i.id === itemId)).toMatchObject({ rating_avg: 8.6, rating_count: 5 });

    // approval counts the pending rating: (10+9+9+8+7+0)/6 = 7.166… → 7.2
    const { rows } = await moderate('list');
    const row = rows.find((r) => r.feedback_id === pending.json().feedback_id)!;
    expect(row).toMatchObject({
      item_id: itemId,
      item_title: 'Threshold rated parser',
      rating: 0,
      text: 'secret opinion of a buyer',
    });
    expect((await moderate('approve', String(row.feedback_id))).rows[0]).toEqual({
      feedback_id: row.feedback_id,
      moderation_status: 'approved',
    });
    const after = await detail();
    expect(after).toMatchObject({ rating_avg: 7.2, rating_count: 6 });
    expect(JSON.stringify(after)).not.toContain('secret opinion');
    expect((await t.app.inject('/api/v1/search?q=threshold+rated+parser')).body).not.toContain(
      'secret opinion',
    );
  });
});

describe('moderation and the seller inbox', () => {
  it('approved rows reach the inbox, pending and rejected never; reading marks them read', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller);
    const ids: Record<string, string> = {};
    for (const [name, body] of [
      ['rating', { rating: 6 }],
      ['approved', { rating: 9, text: 'clean code, good tests' }],
      ['rejected', { text: 'spam spam http://spam.example' }],
      ['pending', { text: 'still waiting' }],
    ] as const) {
      const buyer = newWallet();
      await buy(t, buyer, itemId);
      ids[name] = (await give(buyer, itemId, body)).json().feedback_id;
    }
    expect((await moderate('approve', ids.approved!)).ok).toBe(true);
    expect((await moderate('reject', ids.rejected!)).ok).toBe(true);
    // a verdict is final: the same id is no longer pending
    expect((await moderate('approve', ids.rejected!)).rows[0]).toMatchObject({
      error: 'feedback_not_found',
    });
    expect((await moderate('approve', 'not-a-uuid')).ok).toBe(false);
    const listed = (await moderate('list')).rows.map((r) => r.feedback_id);
    expect(listed).toContain(ids.pending);
    expect(listed).not.toContain(ids.rejected);

    const peek = (await inbox(seller, '?peek=true')).json() as InboxBody;
    expect(peek.items.map((r) => r.feedback_id)).toEqual([ids.rating, ids.approved]);
    expect(peek.items.every((r) => r.was_unread)).toBe(true);
    expect(peek.items[1]).toEqual({
      feedback_id: ids.approved,
      item_id: itemId,
      rating: 9,
      text: 'clean code, good tests',
      created_at: expect.any(String),
      was_unread: true,
    });
    expect(peek.items[0]!.text).toBeNull();
    expect(JSON.stringify(peek)).not.toContain('spam');

    const first = (await inbox(seller)).json() as InboxBody;
    expect(first.items.map((r) => [r.feedback_id, r.was_unread])).toEqual([
      [ids.rating, true],
      [ids.approved, true],
    ]);
    expect(((await inbox(seller)).json() as InboxBody).items).toEqual([]);
    const all = (await inbox(seller, '?include_read=true')).json() as InboxBody;
    expect(all.items.map((r) => [r.feedback_id, r.was_unread])).toEqual([
      [ids.rating, false],
      [ids.approved, false],
    ]);
    // the buyer of the item has nothing in its own inbox
    const someBuyer = newWallet();
    await buy(t, someBuyer, itemId);
    expect(((await inbox(someBuyer)).json() as InboxBody).items).toEqual([]);
  });

  it('two concurrent default readers never both receive a row as unread', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller);
    for (let i = 0; i < 6; i++) {
      const buyer = newWallet();
      await buy(t, buyer, itemId);
      await give(buyer, itemId, { rating: i });
    }
    const [a, b] = (await Promise.all([inbox(seller), inbox(seller)])).map(
      (r) => (r.json() as InboxBody).items,
    );
    const unread = [...a!, ...b!].filter((r) => r.was_unread).map((r) => r.feedback_id);
    expect(unread).toHaveLength(6);
    expect(new Set(unread).size).toBe(6);
  });

  it('peek + ack is at-least-once; ack is idempotent and 404 for others; filters and limits', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const buyer = newWallet();
      await buy(t, buyer, itemId);
      ids.push((await give(buyer, itemId, { rating: 5 + i })).json().feedback_id);
    }
    const page = (await inbox(seller, '?peek=true&limit=2')).json() as InboxBody;
    expect(page.items.map((r) => r.feedback_id)).toEqual(ids.slice(0, 2));
    const ack = (id: string, who = seller) => callAs(t, who, 'POST', `/api/v1/inbox/${id}/ack`);
    expect((await ack(ids[0]!)).statusCode).toBe(204);
    expect((await ack(ids[0]!)).statusCode).toBe(204);
    const stranger = newWallet();
    await buy(t, stranger, itemId);
    const notMine = await ack(ids[1]!, stranger);
    expect(notMine.statusCode).toBe(404);
    expect(notMine.json().error).toBe('feedback_not_found');
    expect((await ack(crypto.randomUUID())).statusCode).toBe(404);
    const left = (await inbox(seller, '?peek=true')).json() as InboxBody;
    expect(left.items.map((r) => r.feedback_id)).toEqual(ids.slice(1));

    // since / until bound created_at (since inclusive, until exclusive)
    const [row] = await sql()<{ createdAt: Date }[]>`
      select created_at from item_feedback where id = ${ids[2]!}`;
    const iso = encodeURIComponent(row!.createdAt.toISOString());
    const since = (await inbox(seller, `?peek=true&include_read=true&since=${iso}`)).json();
    expect(since.items.map((r: { feedback_id: string }) => r.feedback_id)).toEqual([ids[2]]);
    const until = (await inbox(seller, `?peek=true&include_read=true&until=${iso}`)).json();
    expect(until.items.map((r: { feedback_id: string }) => r.feedback_id)).toEqual(ids.slice(0, 2));

    for (const [q, code] of [
      ['peek=yes', 'invalid_peek'],
      ['include_read=1', 'invalid_include_read'],
      ['since=yesterday', 'invalid_since'],
      ['until=2026-13-45T00:00:00Z', 'invalid_until'],
      ['since=2026-01-01T10:00:00', 'invalid_since'],
      ['limit=0', 'invalid_limit'],
      ['limit=101', 'invalid_limit'],
      ['limit=1e1', 'invalid_limit'],
    ]) {
      const res = await t.app.inject(`/api/v1/inbox?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error, q).toBe(code);
    }
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/inbox/nope/ack' })).json().error,
    ).toBe('invalid_feedback_id');
  });
});

describe('platform feedback', () => {
  const send = (wallet: LocalAccount, body: unknown) =>
    callAs(t, wallet, 'POST', '/api/v1/feedback/platform', body);

  it('any wallet may send (no account is created); an account adds its username', async () => {
    const stranger = newWallet();
    const res = await send(stranger, {
      text: 'Search could rank Go higher',
      contact: 'email: a@b.example',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ feedback_id: expect.any(String) });
    const [count] = await sql()<{ n: number }[]>`
      select count(*)::int as n from agents where address = ${stranger.address.toLowerCase()}`;
    expect(count!.n).toBe(0);

    const seller = newWallet();
    await activeListing(t, seller);
    const username = (await callAs(t, seller, 'GET', '/api/v1/agent/username')).json().username;
    const mine = await send(seller, { text: 'Thanks' });
    const rows = await sql()<{ id: string; username: string | null; contact: string | null }[]>`
      select id, username, contact from platform_feedback
      where id in (${res.json().feedback_id}, ${mine.json().feedback_id})`;
    expect(rows.find((r) => r.id === mine.json().feedback_id)?.username).toBe(username);
    expect(rows.find((r) => r.id === res.json().feedback_id)).toMatchObject({
      username: null,
      contact: 'email: a@b.example',
    });
  });

  it('validates text and contact before the handshake', async () => {
    for (const [body, code] of [
      [{}, 'empty_text'],
      [{ text: '' }, 'empty_text'],
      [{ text: '  \n ' }, 'empty_text'],
      [{ text: 5 }, 'invalid_text'],
      [{ text: 'a\u0000b' }, 'invalid_text'],
      [{ text: 'y'.repeat(1001) }, 'text_too_long'],
      [{ text: 'ok', contact: 'c'.repeat(121) }, 'invalid_contact'],
      [{ text: 'ok', contact: 'email: a@b.c\nphone: 1' }, 'invalid_contact'],
      [{ text: 'ok', contact: 7 }, 'invalid_contact'],
      [{ text: 'ok', email: 'a@b.c' }, 'unknown_feedback_key'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/feedback/platform',
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error, JSON.stringify(body)).toBe(code);
    }
    const empty = await t.app.inject({ method: 'POST', url: '/api/v1/feedback/platform' });
    expect(empty.json().error).toBe('empty_text');
    expect(
      (await send(newWallet(), { text: 'z'.repeat(1000), contact: 'x'.repeat(120) })).statusCode,
    ).toBe(201);
  });

  it('5 per wallet per rolling 24 hours, then 429 rate_limited with Retry-After', async () => {
    const wallet = newWallet();
    for (let i = 0; i < 5; i++)
      expect((await send(wallet, { text: `note ${i}` })).statusCode).toBe(201);
    const limited = await send(wallet, { text: 'one more' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'rate_limited' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // another wallet is not affected; once the oldest leaves the window, one more fits
    expect((await send(newWallet(), { text: 'hello' })).statusCode).toBe(201);
    await sql()`update platform_feedback set created_at = now() - interval '25 hours'
                where id = (select id from platform_feedback where wallet = ${wallet.address.toLowerCase()}
                            order by created_at limit 1)`;
    expect((await send(wallet, { text: 'after a day' })).statusCode).toBe(201);
    expect((await send(wallet, { text: 'and no more' })).statusCode).toBe(429);
  });
});
