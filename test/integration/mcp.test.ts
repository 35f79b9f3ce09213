import { createHash, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicItemSchema, SearchResultSchema } from '../../src/wire/items.js';
import { AcquireResponseSchema } from '../../src/wire/orders.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { seedListing } from '../helpers/catalog.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf } from '../helpers/mcp.js';

/**
 * The real MCP client and server over an in-memory transport; the tools call the real app over a
 * real loopback socket with a real viem wallet, so every acquire is a full x402 handshake.
 */
let t: ListeningTestContext;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startListeningTestApp();
  base = t.base;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
});

/** Every tool the server declares. */
const TOOL_NAMES = [
  'search_items',
  'get_item',
  'preview_item',
  'quote_item',
  'acquire_item',
  'get_order',
  'get_invoice',
  'download_order',
  'list_my_orders',
  'list_item',
  'get_listing_status',
  'list_my_items',
  'delete_item',
  'get_payouts',
  'get_seller_stats',
  'submit_feedback',
  'read_inbox',
  'ack_feedback',
  'send_platform_feedback',
  'get_username',
  'set_username',
  'get_sales_chains',
  'set_sales_chains',
];

/** A connected MCP client; `wallet: false` leaves the server without a signing key. */
async function connect(opts: { wallet?: boolean; maxPaymentUsdc?: number } = {}) {
  const c = await connectMcp(base, {
    ...(opts.wallet === false && { wallet: false }),
    limits: { perPurchase: opts.maxPaymentUsdc ?? 10 },
  });
  clients.push(c.client);
  return c;
}

const ordersOf = async (itemId: string) =>
  (
    await t.runtime.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from orders where item_id = ${itemId}`
  )[0]!.n;

describe('tool list', () => {
  it('declares snake_case tools with titles, described inputs, output schemas and honest annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description!.length).toBeGreaterThan(100);
      expect(tool.outputSchema?.type).toBe('object');
      for (const field of Object.values(tool.inputSchema.properties ?? {})) {
        expect((field as { description?: string }).description).toBeTruthy();
      }
    }
    expect(byName.search_items!.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(byName.acquire_item!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.acquire_item!.inputSchema.required).toEqual(
      expect.arrayContaining(['item_id', 'max_price_usdc', 'accept_terms']),
    );
    expect(byName.acquire_item!.description).toContain(`${base}/terms/v1`);
    expect(byName.acquire_item!.description).toContain(`${base}/license/v1`);
  });
});

describe('search_items', () => {
  it('returns { items } of ranked search results', async () => {
    const id = await seedListing(t.runtime.deps.sql, t.runtime.deps.embedder, {
      title: 'Quokka websocket relay',
      description: 'A websocket relay server with rooms and presence',
      techStack: 'typescript, node',
      price: 3,
    });
    const { call } = await connect({ wallet: false });
    const r = await call('search_items', {
      q: 'quokka websocket relay',
      tech_stack: 'typescript',
      max_price: 5,
    });
    expect(r.isError).toBeFalsy();
    const items = (r.structuredContent as { items: unknown[] }).items.map((i) =>
      SearchResultSchema.parse(i),
    );
    expect(items[0]).toMatchObject({
      id,
      status: 'active',
      metadata: { title: 'Quokka websocket relay', prices: { USDC: 3 } },
    });
    expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
  });

  it('sends price bounds as plain decimals, so a tiny bound is not written as 1e-7', async () => {
    const { call } = await connect({ wallet: false });
    const r = await call('search_items', { q: 'quokka websocket relay', min_price: 1e-7 });
    expect(textOf(r)).not.toMatch(/invalid_price/);
    expect(r.isError).toBeFalsy();
  });

  it('reports the API code and how to fix an inverted price range', async () => {
    const { call } = await connect({ wallet: false });
    const r = await call('search_items', { q: 'anything', min_price: 5, max_price: 1 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/HTTP 400 invalid_price_range.*min_price must not exceed max_price/);
  });
});

describe('get_item', () => {
  it('returns the public item', async () => {
    const item = await createSaleItem(t.runtime.deps, {
      priceUsdc: 1.5,
      title: 'Wombat CSV parser',
    });
    const { call } = await connect({ wallet: false });
    const r = await call('get_item', { item_id: item.itemId });
    expect(PublicItemSchema.parse(r.structuredContent)).toMatchObject({
      id: item.itemId,
      metadata: { title: 'Wombat CSV parser', prices: { USDC: 1.5 } },
      available_chains: ['base', 'polygon'],
    });
  });

  it('says item_not_found and points to search_items', async () => {
    const { call } = await connect({ wallet: false });
    const r = await call('get_item', { item_id: randomUUID() });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/HTTP 404 item_not_found.*search_items/);
  });
});

describe('acquire_item', () => {
  it('buys with the configured wallet and returns working links', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.75 });
    const { call } = await connect();
    const r = await call('acquire_item', {
      item_id: item.itemId,
      chain: 'polygon',
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(r.isError).toBeFalsy();
    const order = AcquireResponseSchema.parse(r.structuredContent);
    expect(order.expires_in).toBe('15 minutes');
    const archive = await fetch(order.download_url);
    expect(
      createHash('sha256')
        .update(Buffer.from(await archive.arrayBuffer()))
        .digest('hex'),
    ).toBe(item.sha256);
    const [row] = await t.runtime.deps.sql<
      { network: string }[]
    >`select network from orders where id = ${order.order_id}`;
    expect(row?.network).toBe('eip155:137');
  });

  it('refuses before signing when the price exceeds max_price_usdc or the operator cap', async () => {
    const cheap = await createSaleItem(t.runtime.deps, { priceUsdc: 1.2 });
    const dear = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
    const { call } = await connect({ maxPaymentUsdc: 1.5 });
    const own = await call('acquire_item', {
      item_id: cheap.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(own.isError).toBe(true);
    expect(textOf(own)).toMatch(
      /HTTP 402 price_above_limit.*1\.2 USDC.*call again with max_price_usdc >= 1\.2/,
    );
    const capped = await call('acquire_item', {
      item_id: dear.itemId,
      max_price_usdc: 5,
      accept_terms: true,
    });
    expect(capped.isError).toBe(true);
    expect(textOf(capped)).toMatch(/2 USDC.*cap of 1\.5 USDC.*MCP_MAX_PAYMENT_USDC/);
    expect(await ordersOf(cheap.itemId)).toBe(0);
    expect(await ordersOf(dear.itemId)).toBe(0);
  });

  it('tells the operator to configure a wallet, and requires accept_terms', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const { call } = await connect({ wallet: false });
    const r = await call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('MCP_WALLET_PRIVATE_KEY');
    const noTerms = await (
      await connect()
    ).call('acquire_item', { item_id: item.itemId, max_price_usdc: 1, accept_terms: false });
    expect(noTerms.isError).toBe(true);
    expect(textOf(noTerms)).toContain('accept_terms');
    expect(await ordersOf(item.itemId)).toBe(0);
  });
});

describe('get_order', () => {
  it('returns fresh links for an own order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.25 });
    const { call } = await connect();
    const bought = AcquireResponseSchema.parse(
      (
        await call('acquire_item', {
          item_id: item.itemId,
          max_price_usdc: 0.25,
          accept_terms: true,
        })
      ).structuredContent,
    );
    const r = await call('get_order', { order_id: bought.order_id });
    const links = AcquireResponseSchema.parse(r.structuredContent);
    expect(links).toMatchObject({ order_id: bought.order_id, expires_in: '15 minutes' });
    expect(links.download_url).toContain(`${base}/api/v1/downloads/${bought.order_id}?exp=`);
    expect((await fetch(links.download_url)).status).toBe(200);
  });

  it("says the order is not the wallet's, or that the wallet never traded", async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.25 });
    const buyer = await connect();
    await buyer.call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    const other = await buyer.call('get_order', { order_id: randomUUID() });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(/HTTP 404 order_not_found.*acquire_item/);
    const stranger = await (await connect()).call('get_order', { order_id: randomUUID() });
    expect(stranger.isError).toBe(true);
    expect(textOf(stranger)).toContain('agent_not_found');
  });
});

describe('resources and prompts', () => {
  it("serves the marketplace's manifest, guide, terms and licence, and two prompts", async () => {
    const { client } = await connect({ wallet: false });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(
      [
        `${base}/agent-usage`,
        `${base}/api/v1/skills`,
        `${base}/license/v1`,
        `${base}/terms/v1`,
      ].sort(),
    );
    const terms = await client.readResource({ uri: `${base}/terms/v1` });
    expect((terms.contents[0] as { text: string }).text).toContain('VERSION: v1');
    const skills = await client.readResource({ uri: `${base}/api/v1/skills` });
    expect(JSON.parse((skills.contents[0] as { text: string }).text)).toHaveProperty('endpoints');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['find_and_buy', 'sell_my_code']);
    const prompt = await client.getPrompt({
      name: 'find_and_buy',
      arguments: { task: 'parse cron expressions', budget_usdc: '3' },
    });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/parse cron expressions.*search_items.*quote_item.*acquire_item/s);
  });
});
