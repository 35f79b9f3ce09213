import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { ensureBuilt } from '../helpers/build.js';
import { hostedMcpAgent } from '../helpers/mcp-hosted-agent.js';
import { spawnBuiltMcp, textOf } from '../helpers/mcp.js';
import { listItem, METADATA } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';
import { freshKey } from '../helpers/wallet-secrets.js';

/**
 * The service is additive on its wire: a later release may add a field to any response. An MCP
 * client that listed the tools checks every `structuredContent` against the tool's listed
 * outputSchema (the SDK client throws -32602 on a mismatch), so a listed schema that closes its
 * objects (`additionalProperties: false`) breaks every client the day a field is added. Here the
 * app answers as that later release would: every JSON success under /api/ carries one more field,
 * at its top level and in each object of its top-level arrays (an order in `orders`, ...). The
 * real SDK clients list the tools, then call them over the real transports, hosted (`/mcp`,
 * whose tools read the REST routes in process) and local (the built entry over stdio, over HTTP).
 */
const LATER = 'later_field';
const LATER_VALUE = 'added by a later release';

/** What a later release answers: the same JSON, one field more at the top and in array items. */
function addLaterField(app: App): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const json = String(reply.getHeader('content-type') ?? '').startsWith('application/json');
    if (!request.url.startsWith('/api/') || reply.statusCode >= 300 || !json) return payload;
    if (typeof payload !== 'string') return payload;
    const body = JSON.parse(payload) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return payload;
    const plain = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    const later: Record<string, unknown> = { ...body, [LATER]: LATER_VALUE };
    for (const [k, v] of Object.entries(later))
      if (Array.isArray(v))
        later[k] = v.map((x: unknown) => (plain(x) ? { ...x, [LATER]: LATER_VALUE } : x));
    return JSON.stringify(later);
  });
}

let t: ListeningTestContext;
/** An uploaded, scanned, active listing (with its preview), 0.5 USDC. */
let itemId: string;

beforeAll(async () => {
  [t] = await Promise.all([
    startListeningTestApp(
      { LOCAL_FACILITATOR_START_BALANCE_USDC: '10' },
      { beforeReady: addLaterField },
    ),
    ensureBuilt(),
  ]);
  itemId = await listItem(t, newWallet(), {
    bytes: zipOf(uniqueProject('additive')),
    metadata: { ...METADATA, title: 'Quokka sighting helpers', prices: { USDC: 0.5 } },
  });
  await t.runtime.runDueJobs();
}, 300_000);
afterAll(() => t?.close());

/** The x402 MCP transport's client rule: structuredContent carries the PaymentRequired. */
function promptOf(r: CallToolResult): PaymentRequired {
  const s = r.structuredContent as Partial<PaymentRequired> | undefined;
  expect(r.isError && s?.x402Version && s.accepts, textOf(r)).toBeTruthy();
  return s as PaymentRequired;
}

it('the app answers as a later release: one more field on its JSON successes', async () => {
  const res = await fetch(`${t.base}/api/v1/items/${itemId}`, {
    headers: { accept: 'application/json' },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ id: itemId, status: 'active', [LATER]: LATER_VALUE });
});

describe('hosted /mcp', () => {
  it('a result carrying a field its schema does not name is accepted by the SDK client, nested too', async () => {
    const a = await hostedMcpAgent(t.base, 'additive-agent');
    const { tools } = await a.client.listTools();
    expect(tools.filter((x) => x.outputSchema).length).toBeGreaterThan(5);

    // paid: the order as the REST route answers it, with the field the listed schema does not name
    const args = { item_id: itemId, accept_terms: true };
    const required = promptOf(await a.call('acquire_item', args));
    const paid = await a.call('acquire_item', args, await a.payer.createPaymentPayload(required));
    expect(paid.isError, textOf(paid)).toBeFalsy();
    const order = paid.structuredContent as { order_id: string };
    expect(paid.structuredContent).toMatchObject({ item_id: itemId, [LATER]: LATER_VALUE });

    /** An identity tool proved with a fresh sign-in-with-x proof; its result as the client took it. */
    const proved = async (name: string, toolArgs: Record<string, unknown>) => {
      const prompt = promptOf(await a.call(name, toolArgs));
      const r = await a.call(name, toolArgs, await a.signIn(prompt));
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
      return r.structuredContent;
    };
    expect(await proved('get_order', { order_id: order.order_id })).toMatchObject({
      order_id: order.order_id,
      [LATER]: LATER_VALUE,
    });
    // nested: the order inside `orders` carries it too
    expect(await proved('list_my_orders', {})).toMatchObject({
      orders: [{ order_id: order.order_id, [LATER]: LATER_VALUE }],
      [LATER]: LATER_VALUE,
    });
    for (const name of ['get_username', 'get_sales_chains', 'list_my_items'])
      expect(await proved(name, {}), name).toMatchObject({ [LATER]: LATER_VALUE });

    // the free catalogue tools over the same responses
    for (const [name, toolArgs] of [
      ['search_items', { q: 'helpers' }],
      ['get_item', { item_id: itemId }],
      ['preview_item', { item_id: itemId }],
      ['quote_item', { item_id: itemId }],
      ['get_listing_status', { item_id: itemId }],
    ] as const) {
      const r = await a.call(name, toolArgs);
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
    }

    // selling: the listing fee paid, the new listing as the route answers it
    const seed = `additive${Date.now().toString(36)}`;
    const listing = {
      archive_base64: zipOf(uniqueProject(seed)).toString('base64'),
      filename: 'quokka-helpers.zip',
      title: `Quokka helpers ${seed}`,
      description: 'Small helpers for quokka sighting logs.',
      tech_stack: 'TypeScript',
      price_usdc: 0.5,
    };
    const fee = promptOf(await a.call('list_item', listing));
    const listed = await a.call('list_item', listing, await a.payer.createPaymentPayload(fee));
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({
      status: 'pending_scan',
      [LATER]: LATER_VALUE,
    });

    // arguments are still checked as declared: a malformed id is refused
    const bad = await a.call('get_item', { item_id: 'not-a-uuid' });
    expect(bad.isError).toBe(true);
    await a.client.close();
  });
});

describe('the local server (built entry over stdio)', () => {
  // Its tools read the REST answers through src/client/, which keeps the fields it knows, and
  // list their outputSchema open to new fields as the hosted ones do (test/unit/mcp-output-schemas).
  it('its tools work against the later release', async () => {
    const client: Client = await spawnBuiltMcp(
      {
        MARKETPLACE_URL: t.base,
        MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-additive-')),
        MCP_WALLET_PRIVATE_KEY: freshKey(),
      },
      'additive-local',
    );
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
        return r.structuredContent as Record<string, unknown>;
      };
      const order = await call('acquire_item', {
        item_id: itemId,
        max_price_usdc: 1,
        accept_terms: true,
      });
      expect(order).toMatchObject({ item_id: itemId, order_id: expect.any(String) });
      for (const [name, args] of [
        ['get_order', { order_id: order.order_id }],
        ['list_my_orders', {}],
        ['search_items', { q: 'helpers' }],
        ['get_item', { item_id: itemId }],
        ['preview_item', { item_id: itemId }],
        ['quote_item', { item_id: itemId }],
        ['get_username', {}],
        ['get_sales_chains', {}],
        ['list_my_items', {}],
        ['get_payouts', {}],
        ['get_seller_stats', {}],
        ['read_inbox', {}],
      ] as const)
        await call(name, args);
    } finally {
      await client.close();
    }
  }, 120_000);
});
