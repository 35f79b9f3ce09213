import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AcquireResultSchema } from '../../mcp/tools/acquire-item.js';
import { QuoteSchema } from '../../mcp/tools/quote-item.js';
import { LocalOrderSchema } from '../../mcp/state.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { buildZip, uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, countingWallet, textOf } from '../helpers/mcp.js';

/**
 * The buying tools through a real MCP client (InMemoryTransport) against the real service on a
 * loopback socket: quotes, purchases with download, digest check and safe unpacking, the repeat
 * guard, spending limits from the persisted ledger, a human's confirmation, settlement outcomes.
 */
let t: ListeningTestContext;
let local: LocalFacilitator;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  t = await startListeningTestApp();
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterEach(() => local.clearFaults());
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

async function connect(opts: Parameters<typeof connectMcp>[1] = {}) {
  const c = await connectMcp(t.base, opts);
  closers.push(c.close);
  return c;
}

const ordersOf = async (itemId: string) =>
  (
    await t.runtime.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from orders where item_id = ${itemId} and status = 'completed'`
  )[0]!.n;

const project = () => zipOf(uniqueProject());

describe('quote_item', () => {
  it('turns the 402 prompt into a quote: price, chains, legal versions, limits; signs nothing', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1.25, title: 'Ocelot queue' });
    const { call } = await connect({ limits: { confirmAbove: 1 } });
    const r = await call('quote_item', { item_id: item.itemId, chain: 'polygon' });
    expect(r.isError).toBeFalsy();
    const q = QuoteSchema.parse(r.structuredContent);
    expect(q).toMatchObject({
      item_id: item.itemId,
      title: 'Ocelot queue',
      price_usdc: 1.25,
      currency: 'USDC',
      legal: {
        policy: { version: 'v1', url: `${t.base}/terms/v1` },
        license: { version: 'v1', url: `${t.base}/license/v1` },
      },
      limits: { within_limits: true, needs_human_confirmation: true, spent_last_24h_usdc: 0 },
    });
    expect(q.chains[0]).toMatchObject({ chain: 'polygon', amount_raw: '1250000' });
    expect(q.chains.map((c) => c.chain).sort()).toEqual(['base', 'polygon']);
    expect(await ordersOf(item.itemId)).toBe(0);
  });

  it('says item_not_found for an unknown listing', async () => {
    const { call } = await connect({ wallet: false });
    const r = await call('quote_item', { item_id: randomUUID() });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/404 item_not_found.*search_items/);
  });
});

describe('acquire_item', () => {
  it('downloads, verifies the SHA-256, unpacks into a new folder and records the order', async () => {
    const bytes = project();
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5, bytes });
    const { call, dataDir } = await connect();
    const r = await call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
      unpack: true,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = AcquireResultSchema.parse(r.structuredContent);
    expect(out).toMatchObject({ item_id: item.itemId, price_usdc: 0.5, chain: 'base' });
    expect(out.archive).toMatchObject({ sha256: item.sha256, bytes: bytes.length, verified: true });
    expect(out.archive!.path.startsWith(path.join(dataDir, 'downloads'))).toBe(true);
    expect(readFileSync(out.archive!.path).equals(bytes)).toBe(true);
    expect(out.unpacked!.files).toEqual(['README.md', 'package.json', 'src/index.ts']);
    expect(readFileSync(path.join(out.unpacked!.dir, 'src/index.ts'), 'utf8')).toContain(
      'export function',
    );

    const mine = await call('list_my_orders');
    const orders = (mine.structuredContent as { orders: unknown[] }).orders.map((o) =>
      LocalOrderSchema.parse(o),
    );
    expect(orders).toEqual([
      expect.objectContaining({
        order_id: out.order_id,
        item_id: item.itemId,
        status: 'completed',
        local_path: out.archive!.path,
        unpacked_to: out.unpacked!.dir,
      }),
    ]);
    expect(mine.structuredContent).toMatchObject({
      spent_last_24h_usdc: 0.5,
      daily_limit_usdc: 50,
    });
  });

  it('refuses to unpack an archive with an entry the scan refuses, keeping the verified file', async () => {
    const bytes = buildZip([
      { name: 'ok.ts', data: 'export const a = 1;\n' },
      { name: '../escape.txt', data: 'out' },
    ]);
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.2, bytes });
    const { call } = await connect();
    const r = await call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
      unpack: true,
    });
    const out = AcquireResultSchema.parse(r.structuredContent);
    expect(out.unpacked).toBeUndefined();
    expect(out.note).toMatch(/Not unpacked.*path_traversal/);
    expect(existsSync(out.archive!.path)).toBe(true);
    const dir = path.dirname(out.archive!.path);
    expect(existsSync(path.join(dir, 'project'))).toBe(false);
    expect(existsSync(path.join(dir, 'escape.txt'))).toBe(false);
  });

  it('refuses a second purchase of the same listing unless buy_again, signing nothing', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.3, bytes: project() });
    const { call } = await connect();
    const args = { item_id: item.itemId, max_price_usdc: 1, accept_terms: true };
    const first = AcquireResultSchema.parse((await call('acquire_item', args)).structuredContent);
    const again = await call('acquire_item', args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain(`order_id ${first.order_id}`);
    expect(textOf(again)).toMatch(/Nothing was signed.*get_order.*buy_again: true/);
    expect(await ordersOf(item.itemId)).toBe(1);
    // quote_item takes the listing and chain only (a tool refuses an argument it does not name)
    const quote = QuoteSchema.parse(
      (await call('quote_item', { item_id: item.itemId })).structuredContent,
    );
    expect(quote.already_bought?.order_id).toBe(first.order_id);
    const second = await call('acquire_item', { ...args, buy_again: true });
    expect(second.isError, textOf(second)).toBeFalsy();
    expect(await ordersOf(item.itemId)).toBe(2);
  });
});

describe('spending limits', () => {
  it('refuses above the rolling 24-hour budget, and the budget survives a restart', async () => {
    const a = await createSaleItem(t.runtime.deps, { priceUsdc: 0.75, bytes: project() });
    const b = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5, bytes: project() });
    const first = await connect({ limits: { daily: 1 } });
    const ok = await first.call('acquire_item', {
      item_id: a.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(ok.isError, textOf(ok)).toBeFalsy();
    // a restart: a new server with the same key and state file
    const restarted = await connect({
      key: first.key,
      dataDir: first.dataDir,
      limits: { daily: 1 },
    });
    const over = await restarted.call('acquire_item', {
      item_id: b.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(
      /0\.5 USDC would pass this server's budget of 1 USDC per rolling 24 hours \(MCP_DAILY_LIMIT_USDC\): 0\.75 USDC already spent.*operator/,
    );
    expect(await ordersOf(b.itemId)).toBe(0);
    const quote = QuoteSchema.parse(
      (await restarted.call('quote_item', { item_id: b.itemId })).structuredContent,
    );
    expect(quote.limits).toMatchObject({ within_limits: false, spent_last_24h_usdc: 0.75 });
  });

  it('asks the human above the threshold: a decline signs nothing, a confirmation buys', async () => {
    const item = await createSaleItem(t.runtime.deps, {
      priceUsdc: 3,
      bytes: project(),
      title: 'Tapir cache',
    });
    const args = { item_id: item.itemId, max_price_usdc: 5, accept_terms: true };
    const blind = await connect({ limits: { confirmAbove: 2 } });
    const refused = await blind.call('acquire_item', args);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/above 2 USDC \(MCP_CONFIRM_ABOVE_USDC\).*elicitation/);

    const declining = await connect({
      limits: { confirmAbove: 2 },
      elicit: () => ({ action: 'decline' }),
    });
    const declined = await declining.call('acquire_item', args);
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/did not confirm.*Nothing was signed/);
    // our own fields (price, listing id, seller, chain, recipient) first; the seller's title only quoted
    expect(declining.elicited[0]).toMatch(
      new RegExp(
        `3 USDC.*listing ${item.itemId} from seller \\S+, paid on base to 0x[0-9a-fA-F]{40} .*title: "Tapir cache"`,
      ),
    );
    expect(await ordersOf(item.itemId)).toBe(0);
    const spent = await declining.call('list_my_orders');
    expect(spent.structuredContent).toMatchObject({ spent_last_24h_usdc: 0, orders: [] });

    const confirming = await connect({
      limits: { confirmAbove: 2 },
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const bought = await confirming.call('acquire_item', args);
    expect(bought.isError, textOf(bought)).toBeFalsy();
    expect(await ordersOf(item.itemId)).toBe(1);
  });
});

describe('settlement outcomes', () => {
  it('settlement_capacity: nothing charged, retry after N seconds, the budget is returned', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.4, bytes: project() });
    const { call } = await connect();
    local.injectFault({ op: 'settle', outcome: 'capacity' });
    const busy = await call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toMatch(/503 settlement_capacity.*nothing was charged.*after 5 seconds/);
    expect((await call('list_my_orders')).structuredContent).toMatchObject({
      spent_last_24h_usdc: 0,
    });
    const retry = await call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(retry.isError, textOf(retry)).toBeFalsy();
  });

  it('payment_settlement_pending: do not pay again, the order and transaction, and get_order later', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.6, bytes: project() });
    const { call } = await connect();
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const args = { item_id: item.itemId, max_price_usdc: 1, accept_terms: true };
    const pending = await call('acquire_item', args);
    expect(pending.isError).toBe(true);
    const text = textOf(pending);
    expect(text).toMatch(
      /409 payment_settlement_pending.*transaction 0x[0-9a-f]{64}.*Do NOT pay again/,
    );
    const orderId = /order_id ([0-9a-f-]{36})/.exec(text)![1]!;
    expect(text).toContain(`get_order { order_id: "${orderId}" }`);
    const mine = await call('list_my_orders');
    expect(mine.structuredContent).toMatchObject({
      spent_last_24h_usdc: 0.6,
      orders: [{ order_id: orderId, status: 'settlement_pending' }],
    });
    // the repeat guard holds while the outcome is unknown: the same payment is re-sent, not a new one
    const again = await call('acquire_item', args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(
      /still settlement_pending.*Nothing new was signed.*Do NOT pay again/,
    );
    expect((await call('list_my_orders')).structuredContent).toMatchObject({
      spent_last_24h_usdc: 0.6,
      orders: [{ order_id: orderId, status: 'settlement_pending' }],
    });
  });
});

describe('acquire_item: a settlement answered as failed may still be mined (s40)', () => {
  it('keeps the payment pending and counted, re-sends the same one, and releases it only once its window closed', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.8, bytes: project() });
    const { walletOf, signatures } = countingWallet(t.base);
    // a session cap of one purchase: a released payment would let the agent sign a second one
    const { call } = await connect({ walletOf, limits: { perSession: 1 } });
    const args = { item_id: item.itemId, max_price_usdc: 1, accept_terms: true };
    local.injectFault({ op: 'settle', outcome: 'failed' });
    const failed = await call('acquire_item', args);
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(
      /402 payment_settlement_failed.*may still be mined.*Do NOT pay again/,
    );
    const pending = async () =>
      (await call('list_my_orders')).structuredContent as {
        orders: Array<{ status: string; decided_after?: string }>;
        spent_last_24h_usdc: number;
      };
    let mine = await pending();
    expect(mine.spent_last_24h_usdc).toBe(0.8);
    expect(mine.orders).toEqual([expect.objectContaining({ status: 'settlement_pending' })]);
    expect(signatures()).toBe(1);
    // asked again before its window closed: the same signed payment is re-sent, nothing new signed
    const again = await call('acquire_item', args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(
      /still settlement_pending.*Nothing new was signed.*Do NOT pay again/,
    );
    expect(signatures()).toBe(2);
    expect(await ordersOf(item.itemId)).toBe(0);
    mine = await pending();
    expect(mine.spent_last_24h_usdc).toBe(0.8);
    expect(mine.orders).toEqual([expect.objectContaining({ status: 'settlement_pending' })]);
    // its window closed unmined: the failure is final, the payment released to budget and session
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 60 * 60 * 1000);
      const released = await call('acquire_item', args);
      expect(released.isError).toBe(true);
      expect(textOf(released)).toMatch(/was released.*nothing was charged/);
      expect(signatures()).toBe(3);
      mine = await pending();
      expect(mine.spent_last_24h_usdc).toBe(0);
      expect(mine.orders).toEqual([expect.objectContaining({ status: 'released' })]);
      const bought = await call('acquire_item', args);
      expect(bought.isError, textOf(bought)).toBeFalsy();
      expect(await ordersOf(item.itemId)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('acquire_item: the answer to the signed payment is lost (review s29)', () => {
  /**
   * A purchase whose paid answer never reached the MCP server (it completed on the marketplace),
   * then a new MCP server on the same state directory (the process restarted).
   */
  async function lostAnswer() {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7, bytes: project() });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-state-'));
    const { walletOf, signatures, deliverAnswers } = countingWallet(t.base, { loseAnswers: true });
    const key = generatePrivateKey();
    const args = { item_id: item.itemId, max_price_usdc: 1, accept_terms: true };
    const first = await (await connect({ key, dataDir, walletOf })).call('acquire_item', args);
    expect(first.isError).toBe(true);
    // the agent is told the payment went out and that calling again re-sends it, never pays twice
    expect(textOf(first)).toMatch(
      /may have been charged.*Do NOT pay another way.*call acquire_item again.*cannot charge twice/,
    );
    expect(await ordersOf(item.itemId)).toBe(1);
    expect(signatures()).toBe(1);
    deliverAnswers();
    const { call } = await connect({ key, dataDir, walletOf });
    return { item, args, call, signatures };
  }

  it('records the signed payment before sending it, so a second acquire (also after a restart) re-sends it and never signs again', async () => {
    const { item, args, call, signatures } = await lostAnswer();
    const again = await call('acquire_item', args);
    expect(again.isError, textOf(again)).toBeFalsy();
    // the same signed payment was re-sent (2 requests carrying one), nothing new was signed
    expect(signatures()).toBe(2);
    expect(await ordersOf(item.itemId)).toBe(1);
    const mine = (await call('list_my_orders')).structuredContent as {
      orders: Array<{ order_id: string; status: string }>;
      spent_last_24h_usdc: number;
    };
    expect(mine.spent_last_24h_usdc).toBe(0.7);
    expect(mine.orders).toEqual([expect.objectContaining({ status: 'completed' })]);
  });

  it('the window closed before the next acquire: the re-sent payment names its order, recorded as bought, still counted, links from get_order; nothing new signed', async () => {
    const { item, args, call, signatures } = await lostAnswer();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // an hour later: the authorization's window closed, its re-send proves nothing fresh
      vi.setSystemTime(Date.now() + 60 * 60 * 1000);
      const again = await call('acquire_item', args);
      expect(again.isError).toBe(true);
      const orderId = /order_id ([0-9a-f-]{36})/.exec(textOf(again))![1]!;
      expect(textOf(again)).toMatch(/settled.*Do not pay again.*get_order/);
      expect(signatures()).toBe(2);
      const mine = (await call('list_my_orders')).structuredContent as {
        orders: Array<{ order_id: string; status: string }>;
        spent_last_24h_usdc: number;
      };
      expect(mine.spent_last_24h_usdc).toBe(0.7);
      expect(mine.orders).toEqual([
        expect.objectContaining({ order_id: orderId, status: 'completed' }),
      ]);
      const links = await call('get_order', { order_id: orderId });
      expect(links.isError, textOf(links)).toBeFalsy();
    } finally {
      vi.useRealTimers();
    }
    expect(await ordersOf(item.itemId)).toBe(1);
  });
});

describe('list_my_orders', () => {
  it('needs a wallet', async () => {
    const { call } = await connect({ wallet: false });
    const r = await call('list_my_orders');
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('MCP_WALLET_PRIVATE_KEY');
  });
});
