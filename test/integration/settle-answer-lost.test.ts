import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileNow } from '../../src/runtime.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { at, validBeforeOf } from '../helpers/remote-rail.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Review s27: a remote facilitator that broadcast the transfer and then lost its answer (its
 * process restarted during the receipt wait: the connection resets; or a gateway in front of it
 * answers 502/504 without an x402 body). classifySettleError maps any such throw to `capacity`,
 * so the claim is RELEASED though the money moved: no order, the reconciler never looks at it,
 * and the buyer's retry of the same signature is refused (the real facilitator's /verify sees the
 * nonce used on chain). The buyer was charged and has no order.
 * Review s28: the same for a proxy's 503 page (Envoy's "upstream connect error or
 * disconnect/reset before headers" once its upstream reset after taking the request).
 *
 * The app talks to a small proxy in front of the facilitator. The facilitator speaks the x402
 * wire protocol; its /verify reads the chain (the fake RPC's token record) as a real one's does.
 */
/** What the facilitator does with a /settle: broadcast (mined), then answer or lose the answer. */
type Fault = 'none' | 'reset' | 'gateway';
let fault: Fault = 'reset';
/**
 * The proxy: `pass` forwards (an upstream reset is passed on as a reset); `envoy` answers an
 * upstream reset with Envoy's 503 text page; `down` answers /settle 503 without forwarding it.
 */
type ProxyMode = 'pass' | 'envoy' | 'down';
let proxyMode: ProxyMode = 'pass';
/** /settle requests the facilitator itself received. */
let settles = 0;
let t: ListeningTestContext;
let rpc: FakeRpc;
let server: Server;
let proxy: Server;
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
const unavailable = (res: ServerResponse, reason: string) => {
  res.writeHead(503, { 'content-type': 'text/plain' });
  res.end(`upstream connect error or disconnect/reset before headers. reset reason: ${reason}`);
};
beforeAll(async () => {
  rpc = await startFakeRpc();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/supported')
        return send(200, {
          kinds: [
            { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
            { x402Version: 2, scheme: 'exact', network: 'eip155:137' },
          ],
          extensions: [],
          signers: {},
        });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const auth = body.paymentPayload.payload.authorization as { from: string; nonce: string };
      const used = rpc.usedAuthorizations.has(
        `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`,
      );
      if (req.url === '/verify') {
        if (used)
          return send(400, {
            isValid: false,
            invalidReason: 'invalid_exact_evm_nonce_already_used',
            payer: auth.from,
          });
        return send(200, { isValid: true, payer: auth.from });
      }
      // /settle: the transfer is broadcast and mined, then answered (or the answer is lost)
      settles++;
      const transaction = `0x${randomBytes(32).toString('hex')}`;
      rpc.mine(auth.from, auth.nonce, transaction);
      if (fault === 'none')
        return send(200, {
          success: true,
          transaction,
          network: body.paymentRequirements.network,
          payer: auth.from,
        });
      if (fault === 'reset') return res.socket?.destroy();
      res.writeHead(504, { 'content-type': 'text/html' });
      res.end('<html><body>504 Gateway Time-out</body></html>');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy = createServer((req, res) => {
    if (proxyMode === 'down' && req.url === '/settle') {
      req.resume();
      return req.on('end', () => unavailable(res, 'connection failure'));
    }
    const up = request(
      `${urlOf(server)}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => {
      if (proxyMode === 'envoy') unavailable(res, 'connection termination');
      else res.socket?.destroy();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t = await startListeningTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'rv-lost-')),
    FACILITATOR_URL: urlOf(proxy),
    RPC_URL_BASE: rpc.url,
    RPC_URL_POLYGON: rpc.url,
  });
});
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
  await new Promise((r) => proxy?.close(r));
  await new Promise((r) => server?.close(r));
  await rpc?.close();
});

async function purchase(f: Fault, via: ProxyMode) {
  fault = f;
  proxyMode = via;
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, prompt, prompt.accepts[0]!);
  const send = (header = signed.header) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
  const first = await send();
  const charged = rpc.usedAuthorizations.has(
    `${buyer.address.toLowerCase()}:${signed.nonce.toLowerCase()}`,
  );
  return { first, charged, send, buyer, signed, item, url };
}
const ordersOf = async (buyer: { address: string }) => {
  const [orders] = await t.runtime.deps.sql<{ n: number }[]>`
    select count(*)::int as n from orders where lower(payer) = ${buyer.address.toLowerCase()}`;
  return orders!.n;
};

const LOST = [
  { name: 'reset', fault: 'reset', via: 'pass' },
  { name: 'gateway 504', fault: 'gateway', via: 'pass' },
  { name: "proxy 503 'upstream reset' after the broadcast", fault: 'reset', via: 'envoy' },
] as const;

describe('a facilitator that moved the money and lost its answer', () => {
  for (const c of LOST) {
    it(`(${c.name}) never releases the claim: the buyer ends with an order`, async () => {
      const { first, charged, send, buyer } = await purchase(c.fault, c.via);
      expect(charged).toBe(true); // the buyer's USDC moved
      // never "try again later, nothing happened": the outcome is unknown (409 pending) at worst
      expect(first.json().error, JSON.stringify(first.json())).not.toBe('settlement_capacity');
      expect(first.statusCode).toBe(409);
      expect(first.json()).toMatchObject({ error: 'payment_settlement_pending' });
      expect(first.json().message).not.toMatch(/nothing was charged/i);
      // the reconciler (which reads the chain) and the buyer's retry then give the order
      await reconcileNow(t.runtime.deps, 0);
      const retry = await send();
      expect(await ordersOf(buyer), JSON.stringify(retry.json())).toBe(1);
      expect(retry.statusCode).toBe(200);
    });
  }

  for (const c of [LOST[0], LOST[2]]) {
    it(`(${c.name}, MCP acquire_item) says do not pay again and keeps the spend counted`, async () => {
      fault = c.fault;
      proxyMode = c.via;
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7 });
      const c2 = await connectMcp(t.base);
      closers.push(c2.close);
      const r = await c2.call('acquire_item', {
        item_id: item.itemId,
        max_price_usdc: 1,
        accept_terms: true,
      });
      expect(r.isError).toBe(true);
      const text = textOf(r);
      expect(text).toMatch(/409 payment_settlement_pending.*Do NOT pay again/);
      expect(text).not.toMatch(/nothing was charged/i);
      // the budget reservation is not given back: the money may have moved (it did here)
      expect((await c2.call('list_my_orders')).structuredContent).toMatchObject({
        spent_last_24h_usdc: 0.7,
      });
    });
  }
});

/**
 * A proxy that answers 503 without ever contacting the facilitator looks, from here, like one
 * whose upstream took the request: pending too. Nothing was broadcast, so once the window closed
 * on the chain's clock the reconciler releases the claim, and the buyer can pay again: the stale
 * authorization is refused before settlement (nothing charged), a fresh one buys once.
 */
describe('a proxy that answers 503 without forwarding /settle', () => {
  it('pending, released once the window closed, then the buyer pays once', async () => {
    const before = settles;
    const { first, charged, send, buyer, signed, url } = await purchase('none', 'down');
    expect(settles).toBe(before); // the facilitator never saw it
    expect(charged).toBe(false);
    expect(first.statusCode, JSON.stringify(first.json())).toBe(409);
    expect(first.json()).toMatchObject({ error: 'payment_settlement_pending' });
    const status = async () => {
      const [row] = await t.runtime.deps.sql<{ status: string }[]>`
        select status from x402_payments where nonce = ${signed.nonce}`;
      return row!.status;
    };
    // its window still open: it may yet be mined, so it stays pending
    await reconcileNow(t.runtime.deps, 0);
    expect(await status()).toBe('pending');
    proxyMode = 'pass';
    const grace = t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS;
    await at(validBeforeOf(signed.payload) + grace + 60, async () => {
      expect((await reconcileNow(t.runtime.deps, 0)).released).toBeGreaterThanOrEqual(1);
      expect(await status()).toBe('released');
      expect(await ordersOf(buyer)).toBe(0);
      // the stale authorization: refused before settlement, nothing charged
      const stale = await send();
      expect(stale.statusCode).toBe(402);
      // which says so: its window passed, nothing settled (spec 7.1: "nothing charged")
      expect(stale.json()).toMatchObject({
        error: 'payment_verification_failed',
        reason: 'invalid_exact_evm_payload_authorization_valid_before',
      });
      expect(stale.json().order_id).toBeUndefined();
      expect(settles).toBe(before);
      // a fresh one: one charge, one order
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      const fresh = await signPayment(buyer, prompt, prompt.accepts[0]!);
      const bought = await send(fresh.header);
      expect(bought.statusCode, JSON.stringify(bought.json())).toBe(200);
      expect(settles).toBe(before + 1);
    });
    expect(await ordersOf(buyer)).toBe(1);
  });
});

/**
 * Review s28: the MCP agent whose purchase ended 409 pending was never told how it ended: its
 * local record stayed settlement_pending, the spend stayed counted, and acquire_item refused
 * (or, with buy_again, signed a second payment while the first could still settle). acquire_item
 * now re-sends the SAME signed payment first (same nonce: it cannot charge twice).
 */
describe('MCP acquire_item after a pending settlement learns how it ended', () => {
  /** Paid authorizations the marketplace received from this wallet (each a signature). */
  const signedBy = async (address: string) =>
    (
      await t.runtime.deps.sql<{ nonce: string }[]>`
        select distinct nonce from x402_payments
        where lower(payer) = ${address.toLowerCase()} and amount_micro > 0`
    ).length;
  const args = (itemId: string, extra: Record<string, unknown> = {}) => ({
    item_id: itemId,
    max_price_usdc: 1,
    accept_terms: true,
    ...extra,
  });
  const spent = async (c2: Awaited<ReturnType<typeof connectMcp>>) =>
    (await c2.call('list_my_orders')).structuredContent as {
      spent_last_24h_usdc: number;
      orders: Array<{ status: string; payment?: string }>;
    };

  it('(a) lost answer, transfer mined: the next acquire_item returns the order, one order, one charge', async () => {
    fault = 'reset';
    proxyMode = 'pass';
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7 });
    const c2 = await connectMcp(t.base);
    closers.push(c2.close);
    const before = settles;
    const first = await c2.call('acquire_item', args(item.itemId));
    expect(textOf(first)).toMatch(/409 payment_settlement_pending/);
    expect(textOf(first)).toMatch(/call acquire_item again with the same arguments/);
    expect(settles).toBe(before + 1);
    await reconcileNow(t.runtime.deps, 0);
    fault = 'none';
    const again = await c2.call('acquire_item', args(item.itemId));
    expect(again.isError, textOf(again)).toBeFalsy();
    const order = again.structuredContent as { order_id: string; archive: { sha256: string } };
    expect(order.archive.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await ordersOf(c2.account)).toBe(1);
    expect(settles).toBe(before + 1); // one charge
    expect(await signedBy(c2.account.address)).toBe(1); // the same signature, sent again
    const mine = await spent(c2);
    expect(mine.spent_last_24h_usdc).toBe(0.7); // paid: the spend stays counted
    expect(mine.orders).toMatchObject([{ order_id: order.order_id, status: 'completed' }]);
    expect(JSON.stringify(mine)).not.toMatch(/payment/);
  });

  it('(b, c) never forwarded: no new signature while pending; released once the window passed, then one purchase', async () => {
    fault = 'none';
    proxyMode = 'down';
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7 });
    const other = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7 });
    // a session cap of 1 USDC: room for one 0.7 payment at a time
    const c2 = await connectMcp(t.base, { limits: { perSession: 1 } });
    closers.push(c2.close);
    const before = settles;
    const first = await c2.call('acquire_item', args(item.itemId));
    expect(textOf(first)).toMatch(/409 payment_settlement_pending/);
    expect(await signedBy(c2.account.address)).toBe(1);
    // (c) still pending (even asked to buy again): the same payment is re-sent, nothing new signed
    const pending = await c2.call('acquire_item', args(item.itemId, { buy_again: true }));
    expect(pending.isError).toBe(true);
    expect(await signedBy(c2.account.address)).toBe(1);
    const [local] = await c2.deps.state.orders(c2.account.address);
    const closes = new Date(local!.valid_before! * 1000).toISOString();
    expect(textOf(pending)).toMatch(/still settlement_pending/);
    expect(textOf(pending)).toMatch(/Do NOT pay again/);
    expect(textOf(pending)).toContain(`Call acquire_item again after ${closes}`);
    expect(await signedBy(c2.account.address)).toBe(1);
    expect((await spent(c2)).spent_last_24h_usdc).toBe(0.7);
    expect(settles).toBe(before);
    // while it may still settle it stays counted in the session: another 0.7 passes the cap
    const capped = await c2.call('acquire_item', args(other.itemId));
    expect(textOf(capped)).toMatch(/1 USDC per MCP session \(MCP_SESSION_LIMIT_USDC\)/);
    expect(await signedBy(c2.account.address)).toBe(1);

    // (b) the window passes unsettled: the reconciler releases the claim
    proxyMode = 'pass';
    const grace = t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS;
    await at(local!.valid_before! + grace + 60, async () => {
      expect((await reconcileNow(t.runtime.deps, 0)).released).toBeGreaterThanOrEqual(1);
      const released = await c2.call('acquire_item', args(item.itemId));
      expect(released.isError).toBe(true);
      expect(textOf(released)).toMatch(/was released/);
      expect(textOf(released)).toMatch(/nothing was charged/);
      expect(textOf(released)).toMatch(/call acquire_item again/);
      expect(await signedBy(c2.account.address)).toBe(1);
      const after = await spent(c2);
      expect(after.spent_last_24h_usdc).toBe(0); // the spend is back in the budget
      expect(after.orders).toMatchObject([{ order_id: local!.order_id, status: 'released' }]);
      // the agent may pay again, in the same session: the released 0.7 is back under its cap
      // too (it used to stay counted there, refused with MCP_SESSION_LIMIT_USDC), a fresh
      // signature, one charge, one order
      const bought = await c2.call('acquire_item', args(item.itemId));
      expect(bought.isError, textOf(bought)).toBeFalsy();
      expect(await signedBy(c2.account.address)).toBe(2);
      expect(settles).toBe(before + 1);
      expect((await spent(c2)).spent_last_24h_usdc).toBe(0.7);
    });
    expect(await ordersOf(c2.account)).toBe(1);
  });
});
