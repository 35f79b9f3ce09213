import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { SettleResponse } from '@x402/core/types';
import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
} from '@x402/extensions/payment-identifier';
import { SIGN_IN_WITH_X, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { hostedMcpAgent } from '../helpers/mcp-hosted-agent.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
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
/**
 * The service's archive limit here: small enough to show list_item's refusal without megabytes of
 * base64, larger than the 256 KB body /mcp once took, so an archive at the limit must still pass.
 */
const MAX_ARCHIVE = 512 * 1024;

beforeAll(async () => {
  t = await startListeningTestApp({
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
    MAX_ARCHIVE_BYTES: String(MAX_ARCHIVE),
  });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(() => t?.close());

/** An agent with its own wallet, speaking MCP over Streamable HTTP to `/mcp`. */
async function agent() {
  const a = await hostedMcpAgent(t.base);
  const { payer, call, requiredOf, signIn } = a;
  /** An identity tool called twice: unproved (its PaymentRequired), then with a fresh proof. */
  const proved = async (name: string, args: Record<string, unknown>, how: 'x402' | 'siwx') => {
    const required = requiredOf(await call(name, args));
    expect(required, `${name} asks for a proof`).toBeDefined();
    const proof =
      how === 'siwx' ? await signIn(required!) : await payer.createPaymentPayload(required!);
    return call(name, args, proof);
  };
  return { ...a, proved };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

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
        'get_listing_status',
        'get_order',
        'get_sales_chains',
        'get_username',
        'list_item',
        'list_my_items',
        'list_my_orders',
        'preview_item',
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
    // a live listing's status is public: no proof asked
    const status = await a.call('get_listing_status', { item_id: item.itemId });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect(status.structuredContent).toMatchObject({
      item_id: item.itemId,
      status: 'active',
      scan_finished: true,
      view: 'public',
    });
    await a.client.close();
  });

  it('buys with the agent wallet through _meta; a replayed payment names the same order, charges once and mints no link', async () => {
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

    // the same payment again (no payment identifier: all of it is on the chain once broadcast):
    // it names the order, charges nothing and gives no link; links come with a proof (below)
    const replay = await a.call('acquire_item', args, payment);
    expect(replay.isError).toBe(true);
    expect(JSON.stringify(replay)).toContain(order.order_id);
    expect(JSON.stringify(replay)).toMatch(/invalid_exact_evm_nonce_already_used/);
    expect(JSON.stringify(replay)).not.toMatch(/download|sig=/);
    expect(textOf(replay)).toMatch(/Do NOT pay again.*get_order/);
    expect(await countOrders(item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);

    // already bought: a sign-in-with-x proof for the acquire prompt delivers the same order, free
    const signedIn = await a.call(
      'acquire_item',
      args,
      await a.signIn(a.requiredOf(await a.call('acquire_item', args))!),
    );
    expect(signedIn.isError, textOf(signedIn)).toBeFalsy();
    expect((signedIn.structuredContent as { order_id: string }).order_id).toBe(order.order_id);
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

  it('a proof in _meta of the wrong shape is named in the fresh PaymentRequired, not taken for no proof; nothing is charged', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const args = { item_id: item.itemId, accept_terms: true };
    const required = a.requiredOf(await a.call('acquire_item', args))!;
    expect(required.error).toBe('payment_required'); // no proof sent: the plain prompt
    const payment = await a.payer.createPaymentPayload(required);
    const header = Buffer.from(JSON.stringify(payment)).toString('base64');
    // the header's base64 instead of the object (a REST habit), and values of no use at all
    for (const [sent, shape] of [
      [header, 'a string'],
      [null, 'null'],
      [[payment], 'an array'],
      [5, 'a number'],
    ] as const) {
      const r = (await a.client.callTool({
        name: 'acquire_item',
        arguments: args,
        _meta: { 'x402/payment': sent },
      })) as CallToolResult;
      const again = a.requiredOf(r);
      expect(again?.error, shape).toMatch(
        new RegExp(
          `not used and nothing was charged: _meta\\["x402/payment"\\] is ${shape}, not the PaymentPayload object`,
        ),
      );
      expect(again!.accepts[0]!.amount).toBe('500000');
    }
    // an identity tool: an empty sign-in-with-x value is named too
    const proved = (await a.client.callTool({
      name: 'get_username',
      arguments: {},
      _meta: { 'sign-in-with-x': '' },
    })) as CallToolResult;
    expect(a.requiredOf(proved)?.error).toMatch(/_meta\["sign-in-with-x"\] is an empty string/);
    // a string no header can carry (a line break, a character past Latin-1): named, not a crash
    for (const sent of ['abc\ndef', 'proof€']) {
      const r = (await a.client.callTool({
        name: 'acquire_item',
        arguments: args,
        _meta: { 'sign-in-with-x': sent },
      })) as CallToolResult;
      expect(a.requiredOf(r)?.error, sent).toMatch(
        /_meta\["sign-in-with-x"\] is a string no header can carry, not the SIGN-IN-WITH-X header value/,
      );
    }
    expect(await countOrders(item.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(10_000_000);
    // the object itself still pays
    const paid = await a.call('acquire_item', args, payment);
    expect(paid.isError).toBeFalsy();
    expect(await countOrders(item.itemId)).toBe(1);
    await a.client.close();
  });

  it('a payment-identifier id inside _meta["x402/payment"] works as over REST: a fresh signature with the same id is the same order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const other = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const a = await agent();
    const id = generatePaymentId();
    a.payer.onBeforePaymentCreation(async ({ paymentRequired }) => {
      paymentRequired.extensions ??= {};
      appendPaymentIdentifierToExtensions(paymentRequired.extensions, id);
    });
    const buy = async (itemId: string) => {
      const args = { item_id: itemId, accept_terms: true };
      const required = a.requiredOf(await a.call('acquire_item', args))!;
      const payment = await a.payer.createPaymentPayload(required);
      expect(payment.extensions?.['payment-identifier']).toMatchObject({ info: { id } });
      return a.call('acquire_item', args, payment);
    };
    const first = await buy(item.itemId);
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    // the answer never reached the agent: it signs again (a new nonce), same id
    const again = await buy(item.itemId);
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    const orderOf = (r: CallToolResult) => (r.structuredContent as { order_id: string }).order_id;
    expect(orderOf(again)).toBe(orderOf(first));
    expect(await countOrders(item.itemId)).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);
    // the same id for another item: refused, nothing charged
    const conflict = await buy(other.itemId);
    expect(conflict.isError).toBe(true);
    expect(JSON.stringify(conflict.content)).toMatch(/payment_identifier_conflict|another request/);
    expect(await countOrders(other.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(9_500_000);
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
    expect(skills.mcp.tools.paid).toEqual(['acquire_item', 'list_item']);
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

  it('sells through the hosted endpoint: the archive in the call, the fee paid in _meta once, then the scan, the sale and the accounts', async () => {
    const seller = await agent();
    const seed = `hosted${Date.now().toString(36)}`;
    const archive = zipOf(uniqueProject(seed));
    const listing = {
      archive_base64: archive.toString('base64'),
      filename: 'wombat-helpers.zip',
      title: `Wombat helpers ${seed}`,
      description: 'Small numeric helpers for wombat burrow planning.',
      tech_stack: 'TypeScript',
      price_usdc: 0.5,
    };
    const items = async () =>
      (
        await t.runtime.deps.sql<
          { n: number }[]
        >`select count(*)::int as n from items where title = ${listing.title}`
      )[0]!.n;

    // unpaid: the REST listing fee prompt, with the MCP tool's bazaar entry
    const unpaid = await seller.call('list_item', listing);
    const fee = seller.requiredOf(unpaid);
    expect(fee, textOf(unpaid)).toBeDefined();
    expect(fee!.resource.url).toBe(`${t.base}/api/v1/items`);
    expect(fee!.accepts[0]).toMatchObject({ scheme: 'exact', amount: '10000' });
    expect(fee!.accepts[0]!.extra).toMatchObject({ purpose: 'listing_fee' });
    // field for field the prompt a REST client gets for the same upload
    const form = new FormData();
    form.set(
      'metadata',
      JSON.stringify({
        title: listing.title,
        description: listing.description,
        tech_stack: listing.tech_stack,
        prices: { USDC: listing.price_usdc },
      }),
    );
    form.set('file', new Blob([archive]), listing.filename);
    const rest = await fetch(`${t.base}/api/v1/items`, { method: 'POST', body: form });
    expect(rest.status).toBe(402);
    const restPrompt = decodePaymentRequiredHeader(rest.headers.get('PAYMENT-REQUIRED')!);
    expect(fee!.accepts).toEqual(restPrompt.accepts);
    expect(fee!.resource).toEqual(restPrompt.resource);
    const bazaar = fee!.extensions?.bazaar as DiscoveryExtension;
    expect(bazaar.info.input).toMatchObject({ type: 'mcp', toolName: 'list_item' });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(await items()).toBe(0);

    // paid: the listing; the same payment again: the same listing, one fee
    const payment = await seller.payer.createPaymentPayload(fee!);
    const paid = await seller.call('list_item', listing, payment);
    expect(paid.isError, textOf(paid)).toBeFalsy();
    const listed = paid.structuredContent as { item_id: string; status: string; sha256: string };
    expect(listed).toMatchObject({
      status: 'pending_scan',
      sha256: createHash('sha256').update(archive).digest('hex'),
      bytes: archive.length,
    });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(await local.balanceOf(BASE_NETWORK, seller.account.address)).toBe(9_990_000);
    const replay = await seller.call('list_item', listing, payment);
    expect((replay.structuredContent as { item_id: string }).item_id).toBe(listed.item_id);
    expect(await items()).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, seller.account.address)).toBe(9_990_000);

    // the fee is bound to the archive: the same signature lists nothing else
    const other = zipOf(uniqueProject(`${seed}x`));
    const moved = await seller.call(
      'list_item',
      { ...listing, archive_base64: other.toString('base64') },
      payment,
    );
    expect(moved.isError).toBe(true);
    expect(textOf(moved)).toMatch(/HTTP 409 authorization_already_used/);
    expect(await items()).toBe(1);
    expect(await local.balanceOf(BASE_NETWORK, seller.account.address)).toBe(9_990_000);

    // during the scan the public status does not show it: the owner proves the wallet
    const hidden = await seller.call('get_listing_status', { item_id: listed.item_id });
    const ownerPrompt = seller.requiredOf(hidden);
    expect(ownerPrompt!.resource.url).toBe(
      `${t.base}/api/v1/seller/items/${listed.item_id}/status`,
    );
    expect(ownerPrompt!.accepts.every((x) => x.amount === '0')).toBe(true);
    const owner = await seller.call(
      'get_listing_status',
      { item_id: listed.item_id },
      await seller.payer.createPaymentPayload(ownerPrompt!),
    );
    expect(owner.structuredContent).toMatchObject({
      status: 'pending_scan',
      scan_finished: false,
      view: 'owner',
    });
    // another wallet's proof does not open it (404 for not-owned)
    const stranger = await agent();
    await createSaleItem(t.runtime.deps, { sellerAddress: stranger.account.address.toLowerCase() });
    const notMine = await stranger.proved(
      'get_listing_status',
      { item_id: listed.item_id },
      'siwx',
    );
    expect(notMine.isError).toBe(true);
    expect(textOf(notMine)).toMatch(/HTTP 404 item_not_found/);

    // the scan runs while the free status waits for the listing to go live
    const [live] = await Promise.all([
      seller.call('get_listing_status', { item_id: listed.item_id, wait_seconds: 20 }),
      new Promise((r) => setTimeout(r, 300)).then(() => t.runtime.runDueJobs()),
    ]);
    expect(live.isError, textOf(live)).toBeFalsy();
    expect(live.structuredContent).toMatchObject({ status: 'active', view: 'public' });

    // a buyer finds it, previews and quotes it for free, pays, and gets fresh links
    const buyer = await agent();
    const found = await buyer.call('search_items', { q: listing.title });
    expect(JSON.stringify(found.structuredContent)).toContain(listed.item_id);
    const preview = await buyer.call('preview_item', { item_id: listed.item_id });
    expect(preview.isError, textOf(preview)).toBeFalsy();
    expect(JSON.stringify(preview.structuredContent)).toContain('src/index.ts');
    const quote = await buyer.call('quote_item', { item_id: listed.item_id });
    expect(quote.structuredContent).toMatchObject({ price_usdc: 0.5 });
    const args = { item_id: listed.item_id, accept_terms: true };
    const price = buyer.requiredOf(await buyer.call('acquire_item', args))!;
    const bought = await buyer.call(
      'acquire_item',
      args,
      await buyer.payer.createPaymentPayload(price),
    );
    expect(bought.isError, textOf(bought)).toBeFalsy();
    const order = bought.structuredContent as { order_id: string; download_url: string };
    const archiveBack = Buffer.from(await (await fetch(order.download_url)).arrayBuffer());
    expect(archiveBack.equals(archive)).toBe(true);
    const links = await buyer.proved('get_order', { order_id: order.order_id }, 'x402');
    expect(links.structuredContent).toMatchObject({ order_id: order.order_id });

    // account tools take either proof: the buyer's purchases, the seller's listings
    for (const how of ['x402', 'siwx'] as const) {
      const mine = await buyer.proved('list_my_orders', {}, how);
      expect(mine.isError, textOf(mine)).toBeFalsy();
      expect(mine.structuredContent).toMatchObject({
        orders: [
          {
            order_id: order.order_id,
            item_id: listed.item_id,
            title: listing.title,
            price_usdc: 0.5,
            chain: 'base',
          },
        ],
        pagination: { total: 1 },
      });
      const selling = await seller.proved('list_my_items', { status: 'active' }, how);
      expect(selling.isError, textOf(selling)).toBeFalsy();
      expect(selling.structuredContent).toMatchObject({
        items: [{ item_id: listed.item_id, status: 'active' }],
        pagination: { total: 1 },
      });
    }
    // the seller bought nothing; the buyer lists nothing
    expect((await seller.proved('list_my_orders', {}, 'siwx')).structuredContent).toMatchObject({
      orders: [],
    });
    for (const a of [seller, buyer, stranger]) await a.client.close();
  });

  it('identity tools: the unproved answer carries the REST sign-in-with-x challenge; a proof serves one call', async () => {
    const a = await agent();
    await createSaleItem(t.runtime.deps, { sellerAddress: a.account.address.toLowerCase() });
    const unproved = await a.call('get_username', {});
    const required = a.requiredOf(unproved)!;
    const ext = required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension;
    expect(ext.info).toMatchObject({
      domain: new URL(t.base).host,
      uri: `${t.base}/api/v1/agent/username`,
      nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(ext.supportedChains).toContainEqual({ chainId: BASE_NETWORK, type: 'eip191' });

    const proof = await a.signIn(required);
    const named = await a.call('get_username', {}, proof);
    expect(named.isError, textOf(named)).toBeFalsy();
    expect(named.structuredContent).toMatchObject({ username: expect.any(String) });

    // the signed payload itself (not base64) is taken too
    const fresh = a.requiredOf(await a.call('get_username', {}))!;
    const asObject = JSON.parse(
      Buffer.from((await a.signIn(fresh)).siwx, 'base64').toString('utf8'),
    ) as object;
    const again = await a.call('get_username', {}, { siwx: asObject });
    expect(again.isError, textOf(again)).toBeFalsy();

    // the same proof again: refused with a fresh challenge naming why
    const replay = a.requiredOf(await a.call('get_username', {}, proof));
    expect(replay?.error).toMatch(
      /sign-in-with-x proof was refused.*invalid_siwx_nonce_already_used/,
    );
    // a proof made for another tool's route does not open this one
    const chains = a.requiredOf(await a.call('get_sales_chains', {}))!;
    const moved = a.requiredOf(await a.call('get_username', {}, await a.signIn(chains)));
    expect(moved?.error).toMatch(/invalid_siwx_uri_mismatch/);
    await a.client.close();
  });

  it('list_item refuses an archive over the service limit before decoding it, and bad input before any fee', async () => {
    const a = await agent();
    const base = {
      filename: 'big.zip',
      title: 'Too big',
      description: 'An archive larger than the service accepts.',
      tech_stack: 'TypeScript',
      price_usdc: 1,
    };
    // not even base64: the size alone refuses it
    const big = await a.call('list_item', {
      ...base,
      archive_base64: '!'.repeat(Math.ceil(MAX_ARCHIVE / 3) * 4 + 4),
    });
    expect(big.isError).toBe(true);
    expect(textOf(big)).toMatch(/payload_too_large/);
    expect(a.requiredOf(big)).toBeUndefined();
    // exactly at the limit is not refused for its size
    const atLimit = await a.call('list_item', {
      ...base,
      archive_base64: Buffer.alloc(MAX_ARCHIVE).toString('base64'),
    });
    expect(textOf(atLimit)).not.toMatch(/payload_too_large/);
    const garbled = await a.call('list_item', { ...base, archive_base64: 'UEsD!!==' });
    expect(textOf(garbled)).toMatch(/invalid_file/);
    // the REST validation answers before any fee: not an archive, a wrong name
    const notZip = await a.call('list_item', {
      ...base,
      archive_base64: Buffer.from('hello').toString('base64'),
    });
    expect(a.requiredOf(notZip)).toBeUndefined();
    expect(textOf(notZip)).toMatch(/unsupported_archive/);
    const badName = await a.call('list_item', {
      ...base,
      filename: 'big.rar',
      archive_base64: zipOf(uniqueProject()).toString('base64'),
    });
    expect(textOf(badName)).toMatch(/invalid_file_name/);
    await a.client.close();
  });

  it('a payment signed for one listing (or one tool) buys no other: refused before anything moves', async () => {
    // twins: same seller, same price, so the signed transfer (recipient, amount) fits both
    const seller = `0x${'5e'.repeat(20)}`;
    const x = await createSaleItem(t.runtime.deps, { sellerAddress: seller, priceUsdc: 0.25 });
    const y = await createSaleItem(t.runtime.deps, { sellerAddress: seller, priceUsdc: 0.25 });
    const a = await agent();
    const forX = await a.payer.createPaymentPayload(
      a.requiredOf(await a.call('acquire_item', { item_id: x.itemId, accept_terms: true }))!,
    );
    const onY = await a.call('acquire_item', { item_id: y.itemId, accept_terms: true }, forX);
    expect(a.requiredOf(onY)?.error).toMatch(/refused and nothing was charged/);
    expect(await countOrders(y.itemId)).toBe(0);
    expect(await local.balanceOf(BASE_NETWORK, a.account.address)).toBe(10_000_000);
    // a zero-value identity proof made for one tool's route opens no other tool's
    await createSaleItem(t.runtime.deps, { sellerAddress: a.account.address.toLowerCase() });
    const forChains = await a.payer.createPaymentPayload(
      a.requiredOf(await a.call('get_sales_chains', {}))!,
    );
    const onItems = await a.call('list_my_items', {}, forChains);
    expect(a.requiredOf(onItems)?.error).toMatch(/refused and nothing was charged/);
    // the untouched proof still serves the tool it was made for (the refusal spent nothing)
    const own = await a.call('get_sales_chains', {}, forChains);
    expect(own.isError, textOf(own)).toBeFalsy();
    // and X's payment still buys X
    const bought = await a.call('acquire_item', { item_id: x.itemId, accept_terms: true }, forX);
    expect(bought.isError, textOf(bought)).toBeFalsy();
    expect(await countOrders(x.itemId)).toBe(1);
    await a.client.close();
  });

  it('concurrent callers each get their own identity: nothing of one call reaches another', async () => {
    const agents = await Promise.all([agent(), agent(), agent(), agent()]);
    const names = new Map<string, string>();
    for (const a of agents) {
      const item = await createSaleItem(t.runtime.deps, {
        sellerAddress: a.account.address.toLowerCase(),
      });
      names.set(a.account.address, item.seller.username);
    }
    const prompts = await Promise.all(
      agents.map(async (a) => a.requiredOf(await a.call('get_username', {}))!),
    );
    const proofs = await Promise.all(
      agents.map((a, i) => a.payer.createPaymentPayload(prompts[i]!)),
    );
    // all at once, twice over, with an unproved call of each in between
    const answers = await Promise.all(
      [...agents, ...agents].flatMap((a, i) => [
        a.call('get_username', {}, i < agents.length ? proofs[i] : undefined),
        a.call('get_username', {}),
      ]),
    );
    for (const [i, a] of agents.entries()) {
      const proved = answers[2 * i]!;
      expect(proved.isError, textOf(proved)).toBeFalsy();
      expect(proved.structuredContent).toMatchObject({ username: names.get(a.account.address) });
    }
    // every call without a proof (its own, or a later one) is a prompt, never another's answer
    const unproved = answers.filter((_, j) => j % 2 === 1 || j >= 2 * agents.length);
    for (const r of unproved) expect(agents[0]!.requiredOf(r)).toBeDefined();
    await Promise.all(agents.map((a) => a.client.close()));
  });

  it('answers an empty batch with one Invalid Request error, as JSON-RPC 2.0 says', async () => {
    const res = await fetch(`${t.base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '[]',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: an empty batch' },
      id: null,
    });
  });

  it('answers 405 to GET (stateless endpoint)', async () => {
    const res = await fetch(`${t.base}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });
});
