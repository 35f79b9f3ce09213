import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import type { ListeningTestContext } from '../helpers/app.js';
import { hostedMcpAgent, startMcpTestService } from '../helpers/mcp-hosted-agent.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { MCP_ENTRY, ROOT } from '../helpers/build.js';
import { createSaleItem } from '../helpers/items.js';
import { textOf } from '../helpers/mcp.js';
import { freshKey } from '../helpers/wallet-secrets.js';

/**
 * What every real MCP client does (Claude, Cursor, the SDK's own examples): list the tools first.
 * The SDK client then checks every later `structuredContent` against the tool's listed
 * outputSchema, error results included, and throws -32602 on a mismatch. Here a real SDK client
 * over the real transports lists the tools, then reaches each tool's error results, the x402
 * payment prompts and the paid calls, hosted (`/mcp`, Streamable HTTP) and local (the built entry
 * over stdio): none may throw on the client side.
 */
let t: ListeningTestContext;
let local: LocalFacilitator;
const BASE_NETWORK = 'eip155:8453';
const BAD_UUID = 'not-a-uuid';

beforeAll(async () => {
  ({ t, local } = await startMcpTestService());
}, 300_000);
afterAll(() => t?.close());

/**
 * Arguments that make a listed tool answer with an error: a malformed uuid where it takes one,
 * else none at all (a required argument missing), else no arguments (a proof or a wallet missing).
 */
function badArgsOf(tool: Tool): Record<string, unknown> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { format?: string }>;
  const uuid = Object.keys(props).find((k) => props[k]!.format === 'uuid');
  return uuid ? { [uuid]: BAD_UUID } : {};
}

/** The tools listed with an outputSchema: the ones whose results the client checks. */
async function checkedTools(client: Client): Promise<Tool[]> {
  const { tools } = await client.listTools();
  const checked = tools.filter((x) => x.outputSchema);
  expect(checked.length).toBeGreaterThan(5);
  return checked;
}

/** The x402 MCP transport's client rule: structuredContent carries the PaymentRequired. */
function promptOf(r: CallToolResult): PaymentRequired | undefined {
  const s = r.structuredContent as Partial<PaymentRequired> | undefined;
  return r.isError && s?.x402Version && s.accepts ? (s as PaymentRequired) : undefined;
}

describe('hosted /mcp with the tools listed first', () => {
  async function agent() {
    const a = await hostedMcpAgent(t.base, 'listing-agent');
    const { payer, client, call, signIn } = a;
    const tools = await checkedTools(client);
    /** A payment prompt as the transport puts it: structuredContent, the same JSON as text. */
    const prompt = async (name: string, args: Record<string, unknown>) => {
      const r = await call(name, args);
      const required = promptOf(r);
      expect(required, `${name}: ${textOf(r)}`).toBeDefined();
      expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
      return required!;
    };
    /** An identity tool: its prompt, then a fresh proof of either kind. */
    const proved = async (name: string, args: Record<string, unknown>, how: 'x402' | 'siwx') => {
      const required = await prompt(name, args);
      const r = await call(
        name,
        args,
        how === 'siwx' ? await signIn(required) : await payer.createPaymentPayload(required),
      );
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
      return r;
    };
    return { ...a, tools, prompt, proved };
  }

  it('every tool with an outputSchema answers its error result without a client-side throw', async () => {
    const a = await agent();
    const seen: string[] = [];
    for (const tool of a.tools) {
      const r = await a.call(tool.name, badArgsOf(tool));
      expect(r.isError, `${tool.name}: ${textOf(r)}`).toBe(true);
      seen.push(tool.name);
    }
    // the paid and identity tools among them: the x402 prompt (a refused proof too)
    for (const name of ['get_username', 'get_sales_chains', 'list_my_items', 'list_my_orders'])
      await a.prompt(name, {});
    const refused = await a.call('get_username', {}, { siwx: 'bm90IGEgcHJvb2Y=' });
    expect(refused.isError).toBe(true);
    // the listed schema still tells the result apart: the order, or the x402 prompt
    const acquire = a.tools.find((x) => x.name === 'acquire_item')!;
    expect(acquire.outputSchema!.anyOf).toEqual([
      expect.objectContaining({ required: expect.arrayContaining(['order_id', 'download_url']) }),
      expect.objectContaining({ required: expect.arrayContaining(['x402Version', 'accepts']) }),
    ]);
    expect(seen).toEqual(expect.arrayContaining(['acquire_item', 'get_order', 'list_item']));
    await a.client.close();
  });

  it('acquire_item: the unpaid prompt, a refused payment, then paid; the account tools proved', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const args = { item_id: item.itemId, accept_terms: true };

    const required = await a.prompt('acquire_item', args);
    expect(required.accepts[0]).toMatchObject({ scheme: 'exact', amount: '500000' });
    expect(required.resource.url).toBe(`${t.base}/api/v1/items/${item.itemId}/acquire`);

    const tampered = await a.payer.createPaymentPayload(required);
    (tampered.payload as { authorization: { value: string } }).authorization.value = '1';
    const again = promptOf(await a.call('acquire_item', args, tampered));
    expect(again?.error).toMatch(/refused and nothing was charged/);

    const paid = await a.call('acquire_item', args, await a.payer.createPaymentPayload(required));
    expect(paid.isError, textOf(paid)).toBeFalsy();
    const order = paid.structuredContent as { order_id: string; item_id: string };
    expect(order.item_id).toBe(item.itemId);
    expect(paid._meta?.['x402/payment-response'] as SettleResponse).toMatchObject({
      success: true,
      network: BASE_NETWORK,
    });
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);

    const links = await a.proved('get_order', { order_id: order.order_id }, 'x402');
    expect(links.structuredContent).toMatchObject({ order_id: order.order_id });
    const mine = await a.proved('list_my_orders', {}, 'siwx');
    expect(mine.structuredContent).toMatchObject({ orders: [{ order_id: order.order_id }] });
    await a.proved('get_username', {}, 'siwx');
    await a.proved('get_sales_chains', {}, 'x402');
    await a.proved('list_my_items', {}, 'siwx');
    // a listing not live yet: the owner's prompt from get_listing_status
    await a.prompt('get_listing_status', { item_id: '00000000-0000-4000-8000-000000000000' });
    await a.client.close();
  });

  it('list_item: the fee prompt, then paid', async () => {
    const a = await agent();
    const seed = `listed${Date.now().toString(36)}`;
    const listing = {
      archive_base64: zipOf(uniqueProject(seed)).toString('base64'),
      filename: 'numbat-helpers.zip',
      title: `Numbat helpers ${seed}`,
      description: 'Small helpers for numbat termite counting.',
      tech_stack: 'TypeScript',
      price_usdc: 0.5,
    };
    const fee = await a.prompt('list_item', listing);
    const paid = await a.call('list_item', listing, await a.payer.createPaymentPayload(fee));
    expect(paid.isError, textOf(paid)).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ status: 'pending_scan' });
    await a.client.close();
  });
});

describe('the local server (built entry over stdio) with the tools listed first', () => {
  /** The built entry as an agent's host spawns it; its log (stderr) kept to read approval codes. */
  async function spawnLocal(env: Record<string, string>) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_ENTRY],
      cwd: ROOT,
      env: {
        ...getDefaultEnvironment(),
        MARKETPLACE_URL: t.base,
        MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-listed-')),
        ...env,
      },
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    const client = new Client({ name: 'listing-local', version: '1.0.0' });
    await client.connect(transport);
    const tools = await checkedTools(client);
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    return { client, tools, call, log: () => log };
  }

  it('every tool with an outputSchema answers its error result without a client-side throw', async () => {
    // no wallet: the account tools refuse too
    const s = await spawnLocal({});
    try {
      for (const tool of s.tools) {
        const r = await s.call(tool.name, badArgsOf(tool));
        expect(r.isError, `${tool.name}: ${textOf(r)}`).toBe(true);
      }
      const unpaid = await s.call('acquire_item', {
        item_id: '00000000-0000-4000-8000-000000000000',
        max_price_usdc: 1,
        accept_terms: true,
      });
      expect(textOf(unpaid)).toMatch(/has no wallet/);
    } finally {
      await s.client.close();
    }
  }, 60_000);

  it('acquire_item: the human approval prompt, then paid', async () => {
    const item = await createSaleItem(t.runtime.deps, {
      priceUsdc: 0.5,
      bytes: zipOf(uniqueProject()),
    });
    const key = freshKey();
    const s = await spawnLocal({ MCP_WALLET_PRIVATE_KEY: key, MCP_CONFIRM_ABOVE_USDC: '0.1' });
    try {
      const args = { item_id: item.itemId, max_price_usdc: 1, accept_terms: true };
      const waiting = await s.call('acquire_item', args);
      expect(waiting.isError).toBe(true);
      const id = /approval_id: "([0-9a-f-]{36})"/.exec(textOf(waiting))?.[1];
      expect(id, textOf(waiting)).toBeDefined();
      const line = s
        .log()
        .split('\n')
        .find((l) => l.includes(id!));
      const { code } = JSON.parse(line!) as { code: string };
      const confirmed = await s.call('confirm_purchase', { approval_id: id, code });
      expect(confirmed.isError, textOf(confirmed)).toBeFalsy();
      const paid = await s.call('acquire_item', args);
      expect(paid.isError, textOf(paid)).toBeFalsy();
      const order = paid.structuredContent as { order_id: string; archive: { sha256: string } };
      expect(order.archive.sha256).toBe(item.sha256);
      const links = await s.call('get_order', { order_id: order.order_id });
      expect(links.isError, textOf(links)).toBeFalsy();
      expect(await local.balanceOf(BASE_NETWORK, privateKeyToAccount(key).address)).toBe(9_500_000);
    } finally {
      await s.client.close();
    }
  }, 120_000);
});
