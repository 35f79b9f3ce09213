import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { buy } from '../helpers/accounts.js';
import type { ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';

import { createSaleItem } from '../helpers/items.js';
import { connectMcp, spawnBuiltMcp, textOf } from '../helpers/mcp.js';
import { serveHttp } from '../../mcp/http.js';
import { createMcpServer } from '../../mcp/server.js';
import { hostedMcpAgent, startMcpTestService } from '../helpers/mcp-hosted-agent.js';

/**
 * The MCP edges as an agent meets them. Tool arguments as an agent gets them wrong, over the real SDK client and transports: the hosted
 * `/mcp` (Streamable HTTP) and the built local server over stdio. An argument a tool does not
 * name is refused by name before anything is prompted, signed, sent or charged (REST refuses an
 * unknown body key the same way), and every kind of wrong argument to every hosted tool is a
 * tool error the model can act on, never a payment prompt, a 5xx or a hang.
 */
let t: ListeningTestContext;
let local: LocalFacilitator;
const BASE_NETWORK = 'eip155:8453';

beforeAll(async () => {
  ({ t, local } = await startMcpTestService());
}, 300_000);
afterAll(() => t?.close());

const count = async (table: 'orders' | 'item_feedback', itemId: string) =>
  (
    await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from ${t.runtime.deps.sql(table)} where item_id = ${itemId}`
  )[0]!.n;

describe('hosted /mcp (Streamable HTTP)', () => {
  it('lists every tool closed to unknown arguments', async () => {
    const a = await hostedMcpAgent(t.base);
    const { tools } = await a.client.listTools();
    for (const tool of tools)
      expect(tool.inputSchema, tool.name).toMatchObject({ additionalProperties: false });
    await a.client.close();
  });

  it('a free tool refuses a misspelt argument by name instead of ignoring it', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const a = await hostedMcpAgent(t.base);
    const r = await a.call('get_item', { item_id: item.itemId, itemid: item.itemId });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/invalid_request: .*\(itemid\)\. get_item takes item_id;/);
    await a.client.close();
  });

  it('a paid tool refuses an unknown argument before its payment prompt, and with a payment attached charges nothing', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.25 });
    const a = await hostedMcpAgent(t.base);
    // the local server's spending cap, sent to the hosted tool that has none
    const args = { item_id: item.itemId, accept_terms: true, max_price_usdc: 0.1 };
    const unpaid = await a.call('acquire_item', args);
    expect(unpaid.isError).toBe(true);
    expect(a.requiredOf(unpaid)).toBeUndefined();
    expect(textOf(unpaid)).toMatch(
      /\(max_price_usdc\)\. acquire_item takes item_id, chain, accept_terms/,
    );
    // a payment signed for the right call, sent along with the wrong argument: refused, unspent
    const { item_id, accept_terms } = args;
    const required = a.requiredOf(await a.call('acquire_item', { item_id, accept_terms }))!;
    const payment = await a.payer.createPaymentPayload(required);
    const paid = await a.call('acquire_item', args, payment);
    expect(paid.isError).toBe(true);
    expect(textOf(paid)).toMatch(/max_price_usdc/);
    expect(await count('orders', item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(10_000_000);
    // the same payment still buys with the right arguments
    const bought = await a.call('acquire_item', { item_id, accept_terms }, payment);
    expect(bought.isError, textOf(bought)).toBeFalsy();
    expect(await count('orders', item.itemId)).toBe(1);
    await a.client.close();
  });

  it('every tool, every kind of wrong argument: a tool error naming the argument, no prompt, no 5xx, nothing charged', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await hostedMcpAgent(t.base);
    const { tools } = await a.client.listTools();
    /** Arguments each tool takes as valid: the sweep spoils one thing at a time. */
    const valid: Record<string, Record<string, unknown>> = {
      search_items: { q: 'rate limiter' },
      get_item: { item_id: item.itemId },
      preview_item: { item_id: item.itemId },
      quote_item: { item_id: item.itemId },
      get_listing_status: { item_id: item.itemId },
      acquire_item: { item_id: item.itemId, accept_terms: true },
      list_item: {
        archive_base64: zipOf(uniqueProject()).toString('base64'),
        filename: 'p.zip',
        title: 'A title',
        description: 'A description of it.',
        tech_stack: 'TypeScript',
        price_usdc: 1,
      },
      get_order: { order_id: randomUUID() },
      list_my_orders: {},
      list_my_items: {},
      get_username: {},
      get_sales_chains: {},
    };
    // a tool added later must be swept too
    expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(valid).sort());
    const wrongOf = (p: { type?: unknown }) =>
      p.type === 'string' ? 12345 : p.type === 'boolean' ? 'yes' : p.type ? 'many' : { x: [1] };
    const cases: Array<{ tool: string; args: Record<string, unknown>; names: string }> = [];
    for (const tool of tools) {
      const base = valid[tool.name]!;
      const props = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
      cases.push({ tool: tool.name, args: { ...base, zz_extra: 1 }, names: 'zz_extra' });
      cases.push({ tool: tool.name, args: base, names: '' }); // the valid call itself
      for (const req of tool.inputSchema.required ?? []) {
        const { [req]: _, ...missing } = base;
        cases.push({ tool: tool.name, args: missing, names: req });
      }
      for (const [name, p] of Object.entries(props)) {
        cases.push({ tool: tool.name, args: { ...base, [name]: wrongOf(p) }, names: name });
        if (p.type === 'string' && name !== 'archive_base64')
          cases.push({
            tool: tool.name,
            args: { ...base, [name]: 'x'.repeat(100_000) },
            names: name,
          });
      }
    }
    for (const c of cases) {
      const r = await a.call(c.tool, c.args);
      const text = textOf(r);
      const what = `${c.tool} ${JSON.stringify(c.args).slice(0, 120)}: ${text.slice(0, 300)}`;
      expect(text, what).not.toMatch(/internal_error|failed unexpectedly|HTTP 5\d\d/);
      if (!c.names) continue;
      expect(r.isError, what).toBe(true);
      // refused by the arguments' schema, never answered with a payment or identity prompt
      expect(a.requiredOf(r), what).toBeUndefined();
      expect(text, what).toContain(c.names);
    }
    expect(await count('orders', item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(10_000_000);
    await a.client.close();
  }, 300_000);

  it('two sessions sending one payment at once make one order and one charge', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await hostedMcpAgent(t.base);
    const b = await hostedMcpAgent(t.base, 'second-session');
    const args = { item_id: item.itemId, accept_terms: true };
    const payment = await a.payer.createPaymentPayload(
      a.requiredOf(await a.call('acquire_item', args))!,
    );
    const answers = await Promise.all([
      a.call('acquire_item', args, payment),
      b.call('acquire_item', args, payment),
      a.call('acquire_item', args, payment),
    ]);
    const orders = new Set<string>();
    for (const r of answers) {
      const text = textOf(r);
      expect(text).not.toMatch(/internal_error|failed unexpectedly|HTTP 5\d\d/);
      if (!r.isError) orders.add((r.structuredContent as { order_id: string }).order_id);
    }
    expect(orders.size).toBe(1);
    expect(await count('orders', item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);
    await Promise.all([a.client.close(), b.client.close()]);
  });
});

describe('local server over stdio (node dist/mcp/main.js)', () => {
  let client: Client | undefined;
  afterAll(() => client?.close());

  it('submit_feedback with a misspelt review is refused naming the key, as REST does; nothing is recorded', async () => {
    const item = await createSaleItem(t.runtime.deps, { bytes: zipOf(uniqueProject()) });
    const key = generatePrivateKey();
    await buy(t, privateKeyToAccount(key), item.itemId);
    client = await spawnBuiltMcp({
      MARKETPLACE_URL: t.base,
      MCP_WALLET_PRIVATE_KEY: key,
      MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-args-')),
    });
    const call = (name: string, args: Record<string, unknown>) =>
      client!.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const typo = await call('submit_feedback', {
      item_id: item.itemId,
      rating: 9,
      reveiw: 'Clean code, tests pass.',
    });
    expect(typo.isError).toBe(true);
    expect(textOf(typo)).toMatch(
      /unknown_feedback_key: The feedback has a key the marketplace does not accept\. \(reveiw\)\. submit_feedback takes item_id, rating, text;/,
    );
    expect(await count('item_feedback', item.itemId)).toBe(0);
    // the one feedback of this purchase is still there to give, review and all
    const rated = await call('submit_feedback', {
      item_id: item.itemId,
      rating: 9,
      text: 'Clean code, tests pass.',
    });
    expect(rated.isError, textOf(rated)).toBeFalsy();

    // a paid tool: refused before anything is signed or paid
    const other = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const paid = await call('acquire_item', {
      item_id: other.itemId,
      max_price_usdc: 1,
      accept_terms: true,
      chian: 'base',
    });
    expect(paid.isError).toBe(true);
    expect(textOf(paid)).toMatch(
      /invalid_request: .*\(chian\)\. acquire_item takes item_id, chain,/,
    );
    expect(await count('orders', other.itemId)).toBe(0);

    // list_item's arguments are the listing's metadata: REST's code for an unknown metadata key
    const title = `Strict listing ${Date.now()}`;
    const listed = await call('list_item', {
      source_path: mkdtempSync(path.join(tmpdir(), 'mcp-args-src-')),
      title,
      description: 'A small project.',
      tech_stack: 'TypeScript',
      price_usdc: 1,
      licence: 'MIT',
    });
    expect(listed.isError).toBe(true);
    expect(textOf(listed)).toMatch(
      /unknown_metadata_key: .*\(licence\)\. list_item takes source_path, title,/,
    );
    const [listedRows] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from items where title = ${title}`;
    expect(listedRows!.n).toBe(0);
  }, 120_000);

  it('the prompts refuse an argument they do not name, as the tools do (-32602 naming it); their own arguments still write the request', async () => {
    client ??= await spawnBuiltMcp({
      MARKETPLACE_URL: t.base,
      MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-args-')),
    });
    // a budget under the wrong name would be dropped: a request to buy with no spending bound
    await expect(
      client.getPrompt({ name: 'find_and_buy', arguments: { task: 'parse cron', budget: '3' } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /invalid_request: .*\(budget\)\. find_and_buy takes task, budget_usdc, tech_stack;/,
      ),
    });
    await expect(
      client.getPrompt({
        name: 'sell_my_code',
        arguments: { path: '/tmp/project', price_usdc: '3', licence: 'MIT' },
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/\(licence\)\. sell_my_code takes path, price_usdc;/),
    });
    const ok = await client.getPrompt({
      name: 'find_and_buy',
      arguments: { task: 'parse cron', budget_usdc: '3' },
    });
    expect((ok.messages[0]!.content as { text: string }).text).toMatch(/at most 3 USDC/);
  }, 120_000);
});

describe('sessions across a restart', () => {
  it("the local HTTP server answers a session of the process before with 404 Session not found, at once; the client's new session works", async () => {
    const item = await createSaleItem(t.runtime.deps);
    const c = await connectMcp(t.base, { transport: 'http', wallet: false });
    const url = new URL(c.serving!.url);
    expect((await c.call('get_item', { item_id: item.itemId })).isError).toBeFalsy();
    // the server process restarts on the same port: its sessions are gone
    await c.serving!.close();
    // a real restart takes seconds: the client has seen its kept-alive socket close by then
    await new Promise((r) => setTimeout(r, 300));
    const again = await serveHttp(() => createMcpServer(c.deps), {
      port: Number(url.port),
      host: '127.0.0.1',
      token: undefined,
    });
    try {
      const started = Date.now();
      const stale = await c.client
        .callTool({ name: 'get_item', arguments: { item_id: item.itemId } })
        .then(
          () => undefined,
          (e: unknown) => e as { code?: number; message: string },
        );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(stale?.code).toBe(404);
      expect(stale?.message).toMatch(/Session not found: initialize a new session/);
      // the body in the SDK transport's own words (code -32001), for clients that read it
      const raw = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': randomUUID(),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(raw.status).toBe(404);
      expect(await raw.json()).toMatchObject({ error: { code: -32001 } });
      // what the spec tells the client: initialize again, without the old id
      await c.client.close();
      const fresh = new Client({ name: 'after-restart', version: '1.0.0' });
      await fresh.connect(new StreamableHTTPClientTransport(url));
      const r = (await fresh.callTool({
        name: 'get_item',
        arguments: { item_id: item.itemId },
      })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
      await fresh.close();
    } finally {
      await again.close();
    }
  });

  it('hosted /mcp is stateless: a client still holding a session id from before a restart is served', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const client = new Client({ name: 'stale-session', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`), { sessionId: randomUUID() }),
    );
    const r = (await client.callTool({
      name: 'get_item',
      arguments: { item_id: item.itemId },
    })) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
    await client.close();
  });
});
