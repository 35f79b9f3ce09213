import { createHash } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalAccount } from 'viem';
import { ensureApiKey } from '../../mcp/revision-a/key.js';
import { createMcpServer } from '../../mcp/server.js';
import { LocalState } from '../../mcp/state.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { MarketplaceClient } from '../../src/client/index.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { uniqueUsername } from '../helpers/revision-a.js';
import { TEST_LIMITS } from '../helpers/mcp.js';
import { newWallet } from '../helpers/wallets.js';

let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp({ CONTRACT_REVISION: 'A' });
});
afterAll(() => t?.close());

const clientOf = (account: LocalAccount) => new MarketplaceClient({ baseUrl: t.base, account });
const dataDir = () => mkdtempSync(path.join(tmpdir(), 'mcp-reva-'));

describe('typed client against a Revision A deployment', () => {
  it('registers, lists, buys, refetches links, reads the invoice and deletes, with the key', async () => {
    const seller = clientOf(newWallet());
    const reg = await seller.register({
      username: uniqueUsername('seller'),
      country: 'NL',
      chains: ['base'],
    });
    expect(reg.api_key).toEqual(expect.any(String));
    expect(seller.keyed).toBe(true);
    const bytes = zipOf(uniqueProject());
    const { listing } = await seller.upload(bytes, {
      compression: 'zip',
      metadata: {
        title: 'Keyed listing',
        description: 'Listed with an API key',
        tech_stack: 'TypeScript',
        prices: { USDC: 1.5 },
      },
    });
    expect(listing).toMatchObject({ status: 'pending_scan' });
    expect(await seller.sellerItemStatus(listing.item_id)).toMatchObject({
      status: 'pending_scan',
    });
    await t.runtime.runDueJobs();
    expect(await seller.sellerItemStatus(listing.item_id)).toMatchObject({ status: 'active' });

    const buyer = clientOf(newWallet());
    await buyer.register({ username: uniqueUsername('buyer'), country: 'NL' });
    const { order, settlement } = await buyer.acquire(listing.item_id, { maxPriceUsdc: 2 });
    expect(settlement?.success).toBe(true);
    const file = await buyer.download(order.download_url);
    expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const invoice = await buyer.invoiceJson(order.invoice_url);
    expect(invoice).toMatchObject({ order_id: order.order_id, status: 'paid' });
    const links = await buyer.getOrder(order.order_id);
    expect(links.download_url).toContain(order.order_id);

    expect(await buyer.submitFeedback(listing.item_id, { rating: 7 })).toMatchObject({
      moderation_status: 'approved',
    });
    const { items } = await seller.inbox({ peek: true });
    expect(items).toHaveLength(1);
    await seller.ackFeedback(items[0]!.feedback_id);
    expect((await seller.inbox()).items).toEqual([]);
    expect(await buyer.platformFeedback({ text: 'Smooth purchase.' })).toEqual({
      feedback_id: expect.any(String),
    });

    expect((await seller.sellerItems()).items.map((i) => i.item_id)).toEqual([listing.item_id]);
    expect(await seller.deleteItem(listing.item_id)).toEqual({ ok: true });
    expect(await seller.deleteItem(listing.item_id)).toEqual({ ok: true });
  });
});

describe('MCP server key setup (Revision A)', () => {
  it('registers once, keeps the key in its data folder, reuses it, and rotates when it stops working', async () => {
    const account = newWallet();
    const dir = dataDir();
    const setup = { baseUrl: t.base, dataDir: dir, username: undefined, country: 'DE' };
    const first = clientOf(account);
    await ensureApiKey(first, setup);
    expect(first.keyed).toBe(true);
    const file = path.join(dir, 'api-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [agent] = await t.runtime.deps.sql<{ username: string }[]>`
      select username from agents where address = ${account.address.toLowerCase()}`;
    expect(agent!.username).toBe(`mcp-${account.address.slice(2, 12).toLowerCase()}`);

    // A restart reuses the stored key (no new registration, the same account).
    const second = clientOf(account);
    await ensureApiKey(second, setup);
    expect((await second.sellerItems()).items).toEqual([]);

    // The key rotated elsewhere: the stored one is refused, so setup rotates through SIWE.
    await clientOf(account).rotateKey();
    const third = clientOf(account);
    await ensureApiKey(third, setup);
    expect((await third.sellerItems()).items).toEqual([]);
    await expect(second.sellerItems()).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('a wallet without an account and without MCP_COUNTRY gets a setup hint', async () => {
    const setup = { baseUrl: t.base, dataDir: dataDir(), username: undefined, country: undefined };
    await expect(ensureApiKey(clientOf(newWallet()), setup)).rejects.toThrow(/MCP_COUNTRY/);
  });

  it('acquire_item and get_order behave the same to the agent', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.75 });
    // The seller links a wallet on base so the listing is payable (payable chains follow wallets).
    const [seller] = await t.runtime.deps.sql<{ address: string }[]>`
      select address from agents where id = ${item.seller.id}`;
    await t.runtime.deps.sql`
      insert into linked_wallets (address, chain, agent_id) values (${seller!.address}, 'base', ${item.seller.id})`;
    const dir = dataDir();
    const wallet = clientOf(newWallet());
    await ensureApiKey(wallet, {
      baseUrl: t.base,
      dataDir: dir,
      username: undefined,
      country: 'DE',
    });
    const server = createMcpServer({
      baseUrl: t.base,
      catalog: new CatalogClient({ baseUrl: t.base }),
      wallet: async () => wallet,
      limits: TEST_LIMITS,
      state: LocalState.inDir(dir),
      downloadDir: path.join(dir, 'downloads'),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new Client({ name: 'reva-test', version: '1.0.0' });
    await mcp.connect(clientSide);
    try {
      const r = (await mcp.callTool({
        name: 'acquire_item',
        arguments: { item_id: item.itemId, max_price_usdc: 1, accept_terms: true },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const order = r.structuredContent as { order_id: string; download_url: string };
      expect(order.download_url).toContain(order.order_id);
      const again = (await mcp.callTool({
        name: 'get_order',
        arguments: { order_id: order.order_id },
      })) as CallToolResult;
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toMatchObject({ order_id: order.order_id });
    } finally {
      await mcp.close();
    }
  });
});
