import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTED_MCP_TOOLS_A } from '../../mcp/hosted/server.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent } from '../helpers/revision-a.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The hosted MCP endpoint on a Revision A (API-key) marketplace: a hosted server holds no key, so
 * it serves only the tools that need none (the catalogue, the live status, the x402-paid public
 * acquire), and the discovery documents name exactly those. Selling and account tools are the
 * local server's (it registers through SIWE) and the keyed REST routes'.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp({
    CONTRACT_REVISION: 'A',
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
  });
});
afterAll(() => t?.close());

async function connect() {
  const client = new Client({ name: 'hosted-agent-a', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`)));
  return client;
}
const A_TOOLS = [...HOSTED_MCP_TOOLS_A.free, ...HOSTED_MCP_TOOLS_A.paid];

describe('hosted MCP on a Revision A marketplace', () => {
  it('lists only the tools that work without an API key, as the discovery documents say', async () => {
    const client = await connect();
    const listed = (await client.listTools()).tools.map((x) => x.name);
    expect([...listed].sort()).toEqual([...A_TOOLS].sort());
    for (const keyed of [
      'list_item',
      'get_order',
      'list_my_items',
      'list_my_orders',
      'get_username',
    ])
      expect(listed).not.toContain(keyed);
    const skills = (await t.app.inject('/api/v1/skills')).json();
    expect(skills.mcp.tools).toEqual({
      free: HOSTED_MCP_TOOLS_A.free,
      paid: ['acquire_item'],
      identity: [],
    });
    const llms = (await t.app.inject('/llms.txt')).body;
    const line = llms.split('\n').find((l) => l.includes('/mcp'))!;
    expect(line).toContain('acquire_item');
    expect(line).not.toMatch(/list_item|get_username|identity/);
    const wellKnown = (await t.app.inject('/.well-known/x402')).json();
    expect(JSON.stringify(wellKnown)).not.toMatch(/list_item|get_username/);
    await client.close();
  });

  it('a keyed tool called anyway is an error naming it, never a misleading 404 or 401', async () => {
    const client = await connect();
    const res = await client
      .callTool({ name: 'get_username', arguments: {} })
      .then((r) => JSON.stringify(r))
      .catch((e: Error) => e.message);
    expect(res).toMatch(/get_username/);
    expect(res).toMatch(/not found/i);
    expect(res).not.toMatch(/X-API-KEY|Nothing with this id/);
    await client.close();
  });

  it('acquire_item is paid with x402 as in Revision B (with the chain Revision A asks for)', async () => {
    const seller = await registerAgent(t.app);
    const item = await createSaleItem(t.runtime.deps, {
      priceUsdc: 0.5,
      sellerAddress: seller.wallet.address.toLowerCase(),
    });
    const client = await connect();
    const args = { item_id: item.itemId, chain: 'base', accept_terms: true };
    const unpaid = (await client.callTool({
      name: 'acquire_item',
      arguments: args,
    })) as CallToolResult;
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required.accepts.length).toBeGreaterThan(0);
    const payer = new x402Client();
    registerExactEvmScheme(payer, { signer: newWallet() });
    const paid = (await client.callTool({
      name: 'acquire_item',
      arguments: args,
      _meta: { 'x402/payment': await payer.createPaymentPayload(required) },
    })) as CallToolResult;
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({
      order_id: expect.any(String),
      download_url: expect.stringContaining('/api/v1/downloads/'),
    });
    await client.close();
  });
});
