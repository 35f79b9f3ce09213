import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * The hosted MCP endpoint on a running service, driven by a client built from the MCP SDK client,
 * @x402/core and @x402/evm that follows the x402 MCP transport (specs/transports-v2/mcp.md,
 * tool-result binding) field for field: the PaymentRequired from `structuredContent` (checked
 * against `content[0].text`), the PaymentPayload in `params._meta["x402/payment"]`, the receipt
 * in `result._meta["x402/payment-response"]`. The agent pays with its own key; the service holds none.
 */
let t: ListeningTestContext;
let local: LocalFacilitator;
const BASE_NETWORK = 'eip155:8453';

beforeAll(async () => {
  t = await startListeningTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

/** An agent with its own wallet, speaking MCP over Streamable HTTP to `/mcp`. */
async function agent() {
  const account = privateKeyToAccount(generatePrivateKey());
  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: account });
  const client = new Client({ name: 'hosted-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`)));
  const call = (name: string, args: Record<string, unknown>, payment?: PaymentPayload) =>
    client.callTool({
      name,
      arguments: args,
      ...(payment && { _meta: { 'x402/payment': payment } }),
    }) as Promise<CallToolResult>;
  /** The transport's client rule: structuredContent first, else content[0].text. */
  const requiredOf = (r: CallToolResult): PaymentRequired | undefined => {
    const s = (r.structuredContent ??
      JSON.parse((r.content[0] as { text: string }).text)) as Partial<PaymentRequired>;
    return r.isError && s.x402Version && s.accepts ? (s as PaymentRequired) : undefined;
  };
  return { account, payer, client, call, requiredOf };
}

const countOrders = async (itemId: string) =>
  (
    await t.runtime.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from orders where item_id = ${itemId}`
  )[0]!.n;

describe('hosted /mcp', () => {
  it('lists the hosted tool set; catalogue tools answer without payment', async () => {
    const a = await agent();
    const { tools } = await a.client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      [
        'acquire_item',
        'get_item',
        'get_order',
        'get_sales_chains',
        'get_username',
        'quote_item',
        'search_items',
      ].sort(),
    );
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const found = await a.call('get_item', { item_id: item.itemId });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as { id: string }).id).toBe(item.itemId);
    const quote = await a.call('quote_item', { item_id: item.itemId });
    expect(quote.isError).toBeFalsy();
    expect(quote.structuredContent).toMatchObject({
      item_id: item.itemId,
      price_usdc: 0.5,
      chains: expect.arrayContaining([
        expect.objectContaining({ chain: 'base', amount_raw: '500000' }),
      ]),
    });
    await a.client.close();
  });

  it('buys with the agent wallet through _meta; a replayed payment returns the same order and charges once', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const args = { item_id: item.itemId, accept_terms: true };

    const unpaid = await a.call('acquire_item', args);
    const required = a.requiredOf(unpaid);
    expect(required).toBeDefined();
    expect(JSON.parse((unpaid.content[0] as { text: string }).text)).toEqual(
      unpaid.structuredContent,
    );
    // the REST prompt's own requirements: same amount, recipient and resource binding
    expect(required!.x402Version).toBe(2);
    expect(required!.accepts[0]).toMatchObject({ scheme: 'exact', amount: '500000' });
    expect(required!.resource.url).toBe(`${t.base}/api/v1/items/${item.itemId}/acquire`);
    expect(await countOrders(item.itemId)).toBe(0);

    const payment = await a.payer.createPaymentPayload(required!);
    const paid = await a.call('acquire_item', args, payment);
    expect(paid.isError, JSON.stringify(paid.content)).toBeFalsy();
    const order = paid.structuredContent as {
      order_id: string;
      item_id: string;
      download_url: string;
    };
    expect(order.item_id).toBe(item.itemId);
    const receipt = paid._meta?.['x402/payment-response'] as SettleResponse;
    expect(receipt).toMatchObject({
      success: true,
      network: BASE_NETWORK,
      payer: a.account.address.toLowerCase(),
    });
    expect(receipt.transaction).toBeTruthy();
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);

    // the result carries a link, not bytes; the link delivers the archive
    const archive = Buffer.from(await (await fetch(order.download_url)).arrayBuffer());
    expect(createHash('sha256').update(archive).digest('hex')).toBe(item.sha256);

    const replay = await a.call('acquire_item', args, payment);
    expect(replay.isError).toBeFalsy();
    expect((replay.structuredContent as { order_id: string }).order_id).toBe(order.order_id);
    expect((replay._meta?.['x402/payment-response'] as SettleResponse).transaction).toBe(
      receipt.transaction,
    );
    expect(await countOrders(item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);

    // fresh links with a zero-value identity proof in _meta (never settled)
    const ask = await a.call('get_order', { order_id: order.order_id });
    const proofPrompt = a.requiredOf(ask);
    expect(proofPrompt!.accepts.every((x) => x.amount === '0')).toBe(true);
    const proof = await a.payer.createPaymentPayload(proofPrompt!);
    const links = await a.call('get_order', { order_id: order.order_id }, proof);
    expect(links.isError).toBeFalsy();
    expect(links.structuredContent).toMatchObject({ order_id: order.order_id });
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);

    // another wallet's proof does not open this order (404 for not-owned)
    const b = await agent();
    const other = await b.call(
      'get_order',
      { order_id: order.order_id },
      await b.payer.createPaymentPayload(
        a.requiredOf(await b.call('get_order', { order_id: order.order_id }))!,
      ),
    );
    expect(other.isError).toBe(true);
    expect(JSON.stringify(other.content)).not.toContain(order.download_url);
    await a.client.close();
    await b.client.close();
  });

  it('a tampered payment is refused with a fresh PaymentRequired naming why; nothing is charged', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const args = { item_id: item.itemId, accept_terms: true };
    const required = a.requiredOf(await a.call('acquire_item', args))!;
    const payment = await a.payer.createPaymentPayload(required);
    const auth = (payment.payload as { authorization: { value: string } }).authorization;
    auth.value = '1'; // pays one micro-USDC under a signature made for 500000
    const refused = await a.call('acquire_item', args, payment);
    const again = a.requiredOf(refused);
    expect(again?.error).toMatch(/refused and nothing was charged \(payment_verification_failed/);
    expect(again!.accepts[0]!.amount).toBe('500000');
    expect(await countOrders(item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(10_000_000);
    await a.client.close();
  });

  it('answers with the security and CORS headers the rest of the service sends, and a browser preflight allows the MCP headers', async () => {
    const init = await fetch(`${t.base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://agent.example',
        // as a TLS proxy forwards it: HSTS is sent only over https
        'x-forwarded-proto': 'https',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'browser-agent', version: '1.0.0' },
        },
      }),
    });
    expect(init.status).toBe(200);
    expect(
      ((await init.json()) as { result: { serverInfo: unknown } }).result.serverInfo,
    ).toBeDefined();
    const api = await fetch(`${t.base}/api/v1/search?q=x`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    for (const name of [
      'access-control-allow-origin',
      'access-control-expose-headers',
      'content-security-policy',
      'x-frame-options',
      'x-content-type-options',
      'referrer-policy',
      'cross-origin-resource-policy',
      'strict-transport-security',
    ]) {
      expect(init.headers.get(name), name).toBeTruthy();
      expect(init.headers.get(name), name).toBe(api.headers.get(name));
    }
    const preflight = await fetch(`${t.base}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'mcp-protocol-version',
    );
  });

  it('the discovery documents name the hosted endpoint and every tool it lists', async () => {
    const a = await agent();
    const listed = (await a.client.listTools()).tools.map((x) => x.name);
    await a.client.close();
    const llms = await fetch(`${t.base}/llms.txt`).then((r) => r.text());
    const wk = (await fetch(`${t.base}/.well-known/x402`).then((r) => r.json())) as {
      instructions: string;
    };
    const skills = (await fetch(`${t.base}/api/v1/skills`).then((r) => r.json())) as {
      mcp: { url: string; transport: string; tools: Record<string, string[]> };
    };
    expect(llms).toContain(`[Hosted MCP server](${t.base}/mcp)`);
    expect(wk.instructions).toContain(`${t.base}/mcp`);
    expect(skills.mcp).toMatchObject({ url: `${t.base}/mcp`, transport: 'streamable-http' });
    expect(Object.values(skills.mcp.tools).flat().sort()).toEqual([...listed].sort());
    expect(skills.mcp.tools.paid).toEqual(['acquire_item']);
    for (const name of listed) {
      expect(llms).toContain(name);
      expect(wk.instructions).toContain(name);
    }
  });

  it('the unpaid acquire_item carries a bazaar discovery entry for the MCP tool', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const required = a.requiredOf(
      await a.call('acquire_item', { item_id: item.itemId, accept_terms: true }),
    );
    await a.client.close();
    const bazaar = required!.extensions?.bazaar as DiscoveryExtension;
    expect(bazaar.info.input).toMatchObject({
      type: 'mcp',
      toolName: 'acquire_item',
      transport: 'streamable-http',
    });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as never)).toEqual({ valid: true });
    const input = (bazaar.info.input as unknown as { inputSchema: { required: string[] } })
      .inputSchema;
    expect(input.required.sort()).toEqual(['accept_terms', 'item_id']);
  });

  it('answers 405 to GET (stateless endpoint)', async () => {
    const res = await fetch(`${t.base}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });
});
