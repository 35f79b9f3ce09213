import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsernameResultSchema } from '../../mcp/tools/get-username.js';
import { SalesChainsResponseSchema } from '../../src/wire/accounts.js';
import {
  InboxResponseSchema,
  ItemFeedbackCreatedSchema,
  PlatformFeedbackCreatedSchema,
} from '../../src/wire/feedback.js';
import { SellerPayoutsSchema, SellerStatsSchema } from '../../src/wire/payouts.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf } from '../helpers/mcp.js';

/**
 * Feedback and account tools through a real MCP client against the real service: a buyer rates
 * a purchase, the seller peeks at the inbox and acknowledges; usernames, sales chains and
 * platform feedback, each with the isError a model sees when the call is wrong.
 */
let t: ListeningTestContext;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  t = await startListeningTestApp();
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

async function connect(opts: Parameters<typeof connectMcp>[1] = {}) {
  const c = await connectMcp(t.base, opts);
  closers.push(c.close);
  return c;
}

/** A seller MCP whose wallet owns an active listing, and a buyer MCP that bought it. */
async function sale() {
  const seller = await connect();
  const item = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.account.address.toLowerCase(),
    priceUsdc: 0.5,
    bytes: zipOf(uniqueProject()),
  });
  const buyer = await connect();
  const bought = await buyer.call('acquire_item', {
    item_id: item.itemId,
    max_price_usdc: 1,
    accept_terms: true,
  });
  expect(bought.isError, textOf(bought)).toBeFalsy();
  return { seller, buyer, item };
}

describe('feedback tools', () => {
  it('a buyer rates, the seller peeks at the inbox, acknowledges, and the row is read', async () => {
    const { seller, buyer, item } = await sale();
    const rated = await buyer.call('submit_feedback', { item_id: item.itemId, rating: 8 });
    expect(ItemFeedbackCreatedSchema.parse(rated.structuredContent)).toMatchObject({
      moderation_status: 'approved',
    });
    const again = await buyer.call('submit_feedback', { item_id: item.itemId, rating: 9 });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/409 feedback_already_submitted.*one per item/);

    const peeked = InboxResponseSchema.parse(
      (await seller.call('read_inbox', {})).structuredContent,
    );
    expect(peeked.items).toEqual([
      expect.objectContaining({ item_id: item.itemId, rating: 8, was_unread: true }),
    ]);
    // peeking marks nothing: the row is still unread
    const still = InboxResponseSchema.parse(
      (await seller.call('read_inbox', {})).structuredContent,
    );
    expect(still.items).toHaveLength(1);
    const id = peeked.items[0]!.feedback_id;
    const ack = await seller.call('ack_feedback', { feedback_id: id });
    expect(ack.structuredContent).toEqual({ ok: true, feedback_id: id });
    const after = InboxResponseSchema.parse(
      (await seller.call('read_inbox', {})).structuredContent,
    );
    expect(after.items).toEqual([]);
    const unknown = await seller.call('ack_feedback', { feedback_id: randomUUID() });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/404 feedback_not_found.*read_inbox/);
  });

  it('refuses feedback from a wallet that did not buy, and an inbox for a wallet without account', async () => {
    const { item } = await sale();
    const stranger = await connect();
    const r = await stranger.call('submit_feedback', { item_id: item.itemId, rating: 3 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/(not_buyer|agent_not_found)/);
    const inbox = await stranger.call('read_inbox', {});
    expect(inbox.isError).toBe(true);
    expect(textOf(inbox)).toMatch(/agent_not_found.*first purchase \(acquire_item\) or listing/);
  });

  it('send_platform_feedback works from any wallet, up to the daily limit', async () => {
    const anyone = await connect();
    for (let i = 0; i < 5; i++) {
      const r = await anyone.call('send_platform_feedback', {
        text: `search ranks stale listings first (${i})`,
        contact: 'email: ops@example.com',
      });
      expect(PlatformFeedbackCreatedSchema.parse(r.structuredContent).feedback_id).toBeTruthy();
    }
    const sixth = await anyone.call('send_platform_feedback', { text: 'one more' });
    expect(sixth.isError).toBe(true);
    expect(textOf(sixth)).toMatch(/429 rate_limited.*tomorrow/);
  });
});

describe('money tools', () => {
  it('shows the sale in the seller stats and the receivable in payouts, with a plain summary', async () => {
    const { seller, item } = await sale();
    const stats = SellerStatsSchema.parse(
      (await seller.call('get_seller_stats')).structuredContent,
    );
    expect(stats.revenue.sales_count).toBe(1);
    expect(stats.recent_sales[0]).toMatchObject({ item_id: item.itemId, amount: '0.5' });
    const r = await seller.call('get_payouts');
    expect(r.isError, textOf(r)).toBeFalsy();
    const payouts = SellerPayoutsSchema.parse(r.structuredContent);
    const base = payouts.payouts.find((p) => p.chain === 'base')!;
    // the seller's 95% of 0.5 USDC, less the contract's dust of at most 2 units
    expect(Number(base.pending_raw)).toBeGreaterThanOrEqual(474_998);
    const summary = (r.structuredContent as { summary: string }).summary;
    expect(summary).toContain(`base: ${base.pending} USDC receivable`);
    expect(summary).toMatch(/Paid out so far: 0 USDC in 0 payouts.*normally within 15 minutes/);
  });

  it('says that a wallet that never sold has no account', async () => {
    const stranger = await connect();
    for (const name of ['get_payouts', 'get_seller_stats']) {
      const r = await stranger.call(name);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/404 agent_not_found/);
    }
  });
});

describe('account tools', () => {
  it('reads and sets the username once (permanent), and the sales chains', async () => {
    const { seller } = await sale();
    const before = UsernameResultSchema.parse(
      (await seller.call('get_username')).structuredContent,
    );
    expect(before).toMatchObject({ username_type: 'automatic', changeable: true });
    const name = `mcp_${randomUUID().slice(0, 8)}`;
    const set = await seller.call('set_username', { username: name });
    expect(UsernameResultSchema.parse(set.structuredContent)).toEqual({
      username: name,
      username_type: 'user_set',
      changeable: false,
    });
    const twice = await seller.call('set_username', { username: `${name}x` });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toMatch(/409 username_already_changed.*permanent/);

    expect(
      SalesChainsResponseSchema.parse((await seller.call('get_sales_chains')).structuredContent),
    ).toEqual({ sales_chains: ['base', 'polygon'] });
    const only = await seller.call('set_sales_chains', { sales_chains: ['polygon'] });
    expect(only.structuredContent).toEqual({ sales_chains: ['polygon'] });
    const dup = await seller.call('set_sales_chains', { sales_chains: ['base', 'base'] });
    expect(dup.isError).toBe(true);
    expect(textOf(dup)).toMatch(/invalid_sales_chains.*distinct/);
  });

  it('says that a wallet without account has no username yet', async () => {
    const stranger = await connect();
    for (const name of ['get_username', 'get_sales_chains']) {
      const r = await stranger.call(name);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/404 agent_not_found.*no account here yet/);
    }
  });
});
