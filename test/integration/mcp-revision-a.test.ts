import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { UsernameResultSchema } from '../../mcp/tools/get-username.js';
import { lazyWallet } from '../../mcp/wallet.js';
import { SalesChainsResponseSchema } from '../../src/wire/accounts.js';
import {
  InboxResponseSchema,
  ItemFeedbackCreatedSchema,
  PlatformFeedbackCreatedSchema,
} from '../../src/wire/feedback.js';
import { SellerPayoutsASchema, SellerStatsSchema } from '../../src/wire/payouts.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { projectDir, uniqueProject } from '../helpers/archives.js';
import { altered } from '../helpers/forge.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { registerAgent, uniqueUsername } from '../helpers/revision-a.js';

/**
 * The account, money and feedback tools against a Revision A (API-key) deployment, through a real
 * MCP client over InMemoryTransport and the MCP server's own wallet set-up (SIWE registration or
 * key rotation on first use): each answers the agent a correct result in the same shape as in
 * Revision B, or an isError that says what to do, and none calls a Revision B route.
 */
let t: ListeningTestContext;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  t = await startListeningTestApp({ CONTRACT_REVISION: 'A', SCAN_RETRY_BASE_MS: '0' });
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

/** An MCP server as `artifact-marketplace-mcp` builds it (lazy wallet, key set-up), and a client. */
async function connect(opts: { key?: `0x${string}`; username?: string } = {}) {
  const c = await connectMcp(t.base, {
    ...(opts.key && { key: opts.key }),
    walletOf: ({ key, dataDir, limits }) =>
      lazyWallet({
        walletPrivateKey: key,
        marketplaceUrl: t.base,
        limits,
        dataDir,
        account: { username: opts.username, country: 'DE' },
      }),
  });
  closers.push(c.close);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await c.call(name, args);
    // no tool may fall through to a Revision B route, which this deployment does not serve
    expect(textOf(r)).not.toMatch(/\b404 not_found\b|Route .* not found/);
    return r;
  };
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await call(name, args);
    expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
    return r.structuredContent as Record<string, unknown>;
  };
  return { call, ok, account: c.account, key: c.key };
}

/** list_item (no fee in Revision A) and the scan run to its end: the active item's id. */
async function listActive(seller: Awaited<ReturnType<typeof connect>>, price = 0.5) {
  const listed = await seller.ok('list_item', {
    source_path: projectDir(uniqueProject()),
    title: 'Keyed rate limiter',
    description: 'Token-bucket rate limiting listed through MCP on a Revision A marketplace.',
    tech_stack: 'TypeScript',
    price_usdc: price,
  });
  expect(listed).toMatchObject({ status: 'pending_scan', fee_usdc: 0 });
  await t.runtime.runDueJobs();
  const itemId = listed.item_id as string;
  expect(await seller.ok('get_listing_status', { item_id: itemId })).toMatchObject({
    status: 'active',
  });
  return itemId;
}

describe('account tools on a Revision A marketplace', () => {
  it('set_username as the first call registers under that name; afterwards the name is fixed and get_username reads it', async () => {
    const seller = await connect();
    const name = uniqueUsername('mcp-a');
    const set = UsernameResultSchema.parse(await seller.ok('set_username', { username: name }));
    expect(set).toEqual({ username: name, changeable: false });
    const [agent] = await t.runtime.deps.sql<{ username: string }[]>`
      select username from agents where address = ${seller.account.address.toLowerCase()}`;
    expect(agent!.username).toBe(name);

    // the same name again is what it already is; another one is refused, nothing changes
    expect(await seller.ok('set_username', { username: name })).toMatchObject({ username: name });
    const otherName = altered(name, -1);
    expect(otherName).not.toBe(name);
    const other = await seller.call('set_username', { username: otherName });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(
      new RegExp(`Revision A.*fixed.*registered as "${name}".*Nothing was changed`),
    );
    expect(UsernameResultSchema.parse(await seller.ok('get_username'))).toEqual({
      username: name,
      changeable: false,
    });
    // the wallet registered on both chains: it sells on both
    expect(SalesChainsResponseSchema.parse(await seller.ok('get_sales_chains'))).toEqual({
      sales_chains: ['base', 'polygon'],
    });
  });

  it('an account registered elsewhere: the name is read from an active listing, and sales chains follow linked wallets (set_sales_chains links this wallet)', async () => {
    const key = generatePrivateKey();
    const registered = await registerAgent(t.app, {
      wallet: privateKeyToAccount(key),
      chains: ['base'],
    });
    // the MCP server's own set-up finds the account and rotates its key
    const seller = await connect({ key });

    const unknown = await seller.call('get_username');
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/username_unknown.*seller_username.*active listings/);
    const refused = await seller.call('set_username', { username: uniqueUsername('other') });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/Revision A.*fixed.*Nothing was changed/);

    expect(await seller.ok('get_sales_chains')).toEqual({ sales_chains: ['base'] });
    const before = await seller.ok('get_payouts');
    const entries = SellerPayoutsASchema.parse(before).payouts;
    expect(entries.find((p) => p.chain === 'polygon')).toMatchObject({
      status: 'wallet_missing',
      seller_wallet: null,
    });
    expect(before.summary).toMatch(/polygon: no wallet linked.*set_sales_chains/);
    expect(before).not.toHaveProperty('payout_history');

    // leaving out a linked chain would need an unlink route A does not have: refused, unchanged
    const drop = await seller.call('set_sales_chains', { sales_chains: ['polygon'] });
    expect(drop.isError).toBe(true);
    expect(textOf(drop)).toMatch(/not_in_this_revision.*\(base\).*nothing was changed/);
    expect(await seller.ok('get_sales_chains')).toEqual({ sales_chains: ['base'] });

    expect(await seller.ok('set_sales_chains', { sales_chains: ['base', 'polygon'] })).toEqual({
      sales_chains: ['base', 'polygon'],
    });
    const linked = await t.runtime.deps.sql<{ chain: string }[]>`
      select chain from linked_wallets where agent_id = ${registered.agentId} order by chain`;
    expect(linked.map((l) => l.chain)).toEqual(['base', 'polygon']);
    const after = SellerPayoutsASchema.parse(await seller.ok('get_payouts')).payouts;
    expect(after.every((p) => p.seller_wallet === seller.account.address)).toBe(true);

    // once a listing is active, its seller_username is the account's name
    await listActive(seller);
    expect(UsernameResultSchema.parse(await seller.ok('get_username'))).toEqual({
      username: registered.username,
      changeable: false,
    });
  });
});

describe('selling, money and feedback tools on a Revision A marketplace', () => {
  it('a listed sale shows in stats, payouts and the inbox; feedback, ack and platform feedback work; wrong calls get isError', async () => {
    const seller = await connect({ username: uniqueUsername('seller-a') });
    const itemId = await listActive(seller, 0.5);
    expect(await seller.ok('list_my_items')).toMatchObject({
      items: [expect.objectContaining({ item_id: itemId, status: 'active' })],
    });

    const buyer = await connect();
    const bought = await buyer.ok('acquire_item', {
      item_id: itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(bought.order_id).toEqual(expect.any(String));

    // feedback: a wallet that did not buy is refused; the buyer's rating is approved
    const stranger = await connect();
    const notBuyer = await stranger.call('submit_feedback', { item_id: itemId, rating: 3 });
    expect(notBuyer.isError).toBe(true);
    expect(textOf(notBuyer)).toMatch(/403 not_buyer/);
    const rated = ItemFeedbackCreatedSchema.parse(
      await buyer.ok('submit_feedback', { item_id: itemId, rating: 9 }),
    );
    expect(rated.moderation_status).toBe('approved');
    const again = await buyer.call('submit_feedback', { item_id: itemId, rating: 2 });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/409 feedback_already_submitted/);

    // the seller's money: the sale in stats, the receivable in payouts with a plain summary
    const stats = SellerStatsSchema.parse(await seller.ok('get_seller_stats'));
    expect(stats.revenue.sales_count).toBe(1);
    expect(stats.recent_sales[0]).toMatchObject({ item_id: itemId, amount: '0.5' });
    const payouts = await seller.ok('get_payouts');
    const entries = SellerPayoutsASchema.parse(payouts).payouts;
    const paidChain = entries.find((p) => BigInt(p.pending_raw) > 0n)!;
    expect(paidChain).toMatchObject({ status: 'ok', seller_wallet: seller.account.address });
    // the seller's 95% of 0.5 USDC, less the contract's dust of at most 2 units
    expect(Number(paidChain.pending_raw)).toBeGreaterThanOrEqual(474_998);
    expect(payouts.summary).toContain(
      `${paidChain.chain}: ${paidChain.pending} USDC receivable for ${seller.account.address}`,
    );
    expect(payouts.summary).toMatch(/Revision A.*no payout history/);

    // the inbox: the seller peeks (the row stays unread), acknowledges, and it is read
    const peek = InboxResponseSchema.parse(await seller.ok('read_inbox', {}));
    expect(peek.items).toEqual([
      expect.objectContaining({ feedback_id: rated.feedback_id, item_id: itemId, rating: 9 }),
    ]);
    expect(InboxResponseSchema.parse(await seller.ok('read_inbox', {})).items).toHaveLength(1);
    expect(await seller.ok('ack_feedback', { feedback_id: rated.feedback_id })).toEqual({
      ok: true,
      feedback_id: rated.feedback_id,
    });
    expect(InboxResponseSchema.parse(await seller.ok('read_inbox', {})).items).toEqual([]);
    const notMine = await buyer.call('ack_feedback', { feedback_id: rated.feedback_id });
    expect(notMine.isError).toBe(true);
    expect(textOf(notMine)).toMatch(/404 feedback_not_found/);

    expect(
      PlatformFeedbackCreatedSchema.parse(
        await buyer.ok('send_platform_feedback', { text: 'Keyed buying through MCP works.' }),
      ),
    ).toEqual({ feedback_id: expect.any(String) });
    // Revision A takes the text only: a contact is not sent, and the agent is told so
    const withContact = await buyer.ok('send_platform_feedback', {
      text: 'Search could rank by rating.',
      contact: 'email: ops@example.com',
    });
    expect(withContact.note).toMatch(/Revision A.*contact was not sent/);
    const [sent] = await t.runtime.deps.sql<{ text: string; contact: string | null }[]>`
      select text, contact from platform_feedback where id = ${withContact.feedback_id as string}`;
    expect(sent).toEqual({ text: 'Search could rank by rating.', contact: null });

    // deletion (idempotent)
    for (let i = 0; i < 2; i++)
      expect(await seller.ok('delete_item', { item_id: itemId })).toEqual({
        ok: true,
        item_id: itemId,
      });
  });
});
