import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileNow } from '../../src/runtime.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Review s27: a remote facilitator that broadcast the transfer and then lost its answer (its
 * process restarted during the receipt wait: the connection resets; or a gateway in front of it
 * answers 502/504 without an x402 body). classifySettleError maps any such throw to `capacity`,
 * so the claim is RELEASED though the money moved: no order, the reconciler never looks at it,
 * and the buyer's retry of the same signature is refused (the real facilitator's /verify sees the
 * nonce used on chain). The buyer was charged and has no order.
 *
 * The facilitator here speaks the x402 wire protocol; its /verify reads the chain (the fake
 * RPC's token record) as a real facilitator's does.
 */
type Fault = 'reset' | 'gateway';
let fault: Fault = 'reset';
let t: ListeningTestContext;
let rpc: FakeRpc;
let server: Server;
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
      // /settle: the transfer is broadcast and mined, then the answer is lost
      rpc.mine(auth.from, auth.nonce, `0x${randomBytes(32).toString('hex')}`);
      if (fault === 'reset') return res.socket?.destroy();
      res.writeHead(504, { 'content-type': 'text/html' });
      res.end('<html><body>504 Gateway Time-out</body></html>');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startListeningTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'rv-lost-')),
    FACILITATOR_URL: url,
    RPC_URL_BASE: rpc.url,
    RPC_URL_POLYGON: rpc.url,
  });
});
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
  await new Promise((r) => server?.close(r));
  await rpc?.close();
});

async function paidButAnswerLost(f: Fault) {
  fault = f;
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 2 });
  const url = `/api/v1/items/${item.itemId}/acquire`;
  const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
  const buyer = newWallet();
  const signed = await signPayment(buyer, prompt, prompt.accepts[0]!);
  const send = () =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { policy_accepted: true, license_accepted: true },
    });
  const first = await send();
  const charged = rpc.usedAuthorizations.has(
    `${buyer.address.toLowerCase()}:${signed.nonce.toLowerCase()}`,
  );
  return { first, charged, send, buyer, signed };
}

describe('a facilitator that moved the money and lost its answer', () => {
  for (const f of ['reset', 'gateway'] as const) {
    it(`(${f}) never releases the claim: the buyer ends with an order`, async () => {
      const { first, charged, send, buyer } = await paidButAnswerLost(f);
      expect(charged).toBe(true); // the buyer's USDC moved
      // never "try again later, nothing happened": the outcome is unknown (409 pending) at worst
      expect(first.json().error, JSON.stringify(first.json())).not.toBe('settlement_capacity');
      expect(first.statusCode).toBe(409);
      expect(first.json()).toMatchObject({ error: 'payment_settlement_pending' });
      expect(first.json().message).not.toMatch(/nothing was charged/i);
      // the reconciler (which reads the chain) and the buyer's retry then give the order
      await reconcileNow(t.runtime.deps, 0);
      const retry = await send();
      const [orders] = await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from orders where lower(payer) = ${buyer.address.toLowerCase()}`;
      expect(orders!.n, JSON.stringify(retry.json())).toBe(1);
      expect(retry.statusCode).toBe(200);
    });
  }

  it('(MCP acquire_item) says do not pay again and keeps the spend counted', async () => {
    fault = 'reset';
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.7 });
    const c = await connectMcp(t.base);
    closers.push(c.close);
    const r = await c.call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toMatch(/409 payment_settlement_pending.*Do NOT pay again/);
    expect(text).not.toMatch(/nothing was charged/i);
    // the budget reservation is not given back: the money may have moved (it did here)
    expect((await c.call('list_my_orders')).structuredContent).toMatchObject({
      spent_last_24h_usdc: 0.7,
    });
  });
});
