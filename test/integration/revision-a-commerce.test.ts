import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { LocalAccount } from 'viem';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent, signedChallenge, type Registered } from '../helpers/revision-a.js';
import { startSellingApp, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ CONTRACT_REVISION: 'A' });
});
afterAll(() => t?.close());

const key = (r: Registered) => ({ 'x-api-key': r.apiKey });

/** `POST /api/v1/buy` with a JSON body, as the buy scripts send it (`headers`: the key, a payment). */
const postBuy = (headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/buy', headers, payload });

/** An active listing of `seller` with real bytes (payable where the seller linked wallets). */
async function listingOf(seller: Registered, price = 2, title?: string): Promise<string> {
  const item = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.wallet.address,
    priceUsdc: price,
    ...(title !== undefined && { title }),
  });
  expect(item.seller.username).toBe(seller.username);
  return item.itemId;
}

async function buy(
  buyer: Registered,
  body: Record<string, unknown>,
  opts: { payer?: LocalAccount; completion?: Record<string, unknown> } = {},
) {
  const prompt = await postBuy(key(buyer), body);
  if (prompt.statusCode !== 402) return { prompt, done: prompt };
  const required = promptOf(prompt);
  const { header } = await signPayment(opts.payer ?? buyer.wallet, required, required.accepts[0]!);
  const done = await postBuy(
    { ...key(buyer), 'payment-signature': header },
    opts.completion ?? { ...body, policy_accepted: true, license_accepted: true },
  );
  return { prompt, done, required };
}

describe('keyed upload, status, inventory and delete', () => {
  it('lists an archive without a fee, shows the scan on public status, and deletes with the key', async () => {
    const seller = await registerAgent(t.app);
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const unkeyed = await t.app.inject({ method: 'POST', url: '/api/v1/items', ...req });
    expect(unkeyed.statusCode).toBe(401);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: req.payload,
      headers: { ...req.headers, ...key(seller) },
    });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({
      item_id: expect.any(String),
      status: 'pending_scan',
      status_url: `http://marketplace.test/api/v1/items/${body.item_id}/status`,
    });
    expect(res.headers['payment-required']).toBeUndefined();
    // Revision A: public status shows the scan states.
    const during = await t.app.inject(`/api/v1/items/${body.item_id}/status`);
    expect(during.statusCode).toBe(200);
    expect(during.json()).toMatchObject({ status: 'pending_scan' });
    await t.work();
    expect((await t.app.inject(`/api/v1/items/${body.item_id}/status`)).json()).toMatchObject({
      status: 'active',
    });
    // Upload links no wallet: the seller is payable only where it linked one (base).
    const detail = (await t.app.inject(`/api/v1/items/${body.item_id}`)).json();
    expect(detail.available_chains).toEqual(['base']);

    const items = await t.app.inject({ url: '/api/v1/seller/items', headers: key(seller) });
    expect(items.statusCode).toBe(200);
    expect(items.json().items.map((i: { item_id: string }) => i.item_id)).toEqual([body.item_id]);
    expect((await t.app.inject('/api/v1/seller/items')).statusCode).toBe(401);

    const url = `/api/v1/items/${body.item_id}`;
    const noKey = await t.app.inject({ method: 'DELETE', url });
    expect(noKey.statusCode).toBe(401);
    expect(noKey.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    const other = await registerAgent(t.app);
    const foreign = await t.app.inject({ method: 'DELETE', url, headers: key(other) });
    expect(foreign.statusCode).toBe(404);
    const del = await t.app.inject({ method: 'DELETE', url, headers: key(seller) });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: expect.any(String) });
    const again = await t.app.inject({ method: 'DELETE', url, headers: key(seller) });
    expect(again.statusCode).toBe(200);
    expect(Object.keys(again.json())).toEqual(['message']);
    expect((await t.app.inject(`${url}/status`)).statusCode).toBe(404);
    const absent = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/items/${crypto.randomUUID()}`,
      headers: key(seller),
    });
    expect(absent.statusCode).toBe(404);
  });

  it('payable chains follow linked wallets: linking polygon makes the listing payable there at once', async () => {
    const seller = await registerAgent(t.app);
    const item = await listingOf(seller);
    const buyer = await registerAgent(t.app);
    const before = await postBuy(key(buyer), { item_id: item, chain: 'polygon' });
    // The hint falls back to the seller's chains (spec 4.1 rule 2).
    expect(promptOf(before).accepts.map((a) => a.network)).toEqual(['eip155:8453']);
    const link = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/link-wallet',
      headers: key(seller),
      payload: await signedChallenge(t.app, newWallet(), 'link-wallet', 'polygon'),
    });
    expect(link.statusCode).toBe(200);
    expect((await t.app.inject(`/api/v1/items/${item}`)).json().available_chains).toEqual([
      'base',
      'polygon',
    ]);
    const after = await postBuy(key(buyer), { item_id: item, chain: 'polygon' });
    expect(promptOf(after).accepts.map((a) => a.network)).toEqual(['eip155:137', 'eip155:8453']);
  });
});

describe('keyed purchase', () => {
  it('402 prompt, then 200 { order_id, download_url, expires_in } with PAYMENT-RESPONSE', async () => {
    const seller = await registerAgent(t.app);
    const buyer = await registerAgent(t.app);
    const item = await listingOf(seller, 3);
    const unkeyed = await postBuy({}, { item_id: item, chain: 'base' });
    expect(unkeyed.statusCode).toBe(401);
    const { prompt, done, required } = await buy(buyer, { item_id: item, chain: 'base' });
    expect(prompt.statusCode).toBe(402);
    expect(required!.accepts[0]).toMatchObject({ network: 'eip155:8453', amount: '3000000' });
    type Completion = { completion_request: { example: Record<string, unknown> } };
    const ext = (
      required as PaymentRequired & {
        extensions: { bazaar: { input: Completion; info: { input: Completion } } };
      }
    ).extensions;
    expect(ext.bazaar.input.completion_request.example).toEqual({
      item_id: item,
      chain: 'base',
      policy_accepted: true,
      license_accepted: true,
    });
    expect(ext.bazaar.info.input.completion_request.example).toMatchObject({ item_id: item });
    // The live clients' buy script: the prompt from the PAYMENT-REQUIRED header, the completion
    // body from extensions.<their catalog>.input.completion_request.example, merged with the
    // legal flags (it crashes on a missing key)
    const header = prompt.headers['payment-required'] as string;
    const live = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
      extensions: Record<string, { input: Completion }>;
    };
    const example = live.extensions['spawnxchange']!.input.completion_request.example;
    expect({ ...example, policy_accepted: true, license_accepted: true }).toEqual({
      item_id: item,
      chain: 'base',
      policy_accepted: true,
      license_accepted: true,
    });
    expect(prompt.json().extensions.spawnxchange).toEqual(live.extensions['spawnxchange']);
    expect(done.statusCode).toBe(200);
    expect(done.headers['payment-response']).toEqual(expect.any(String));
    const order = done.json();
    expect(Object.keys(order).sort()).toEqual(['download_url', 'expires_in', 'order_id']);
    const file = await t.app.inject(order.download_url.replace('http://marketplace.test', ''));
    expect(file.statusCode).toBe(200);

    // Fresh link and invoice with the key; another agent's key sees nothing.
    const dl = await t.app.inject({
      url: `/api/v1/orders/${order.order_id}/download`,
      headers: key(buyer),
    });
    expect(dl.statusCode).toBe(200);
    expect(Object.keys(dl.json()).sort()).toEqual(['download_url', 'expires_in']);
    const foreign = await t.app.inject({
      url: `/api/v1/orders/${order.order_id}/download`,
      headers: key(seller),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'order_not_found', message: expect.any(String) });
    const missing = await t.app.inject({
      url: `/api/v1/orders/${crypto.randomUUID()}/download`,
      headers: key(buyer),
    });
    expect(missing.statusCode).toBe(404);
    const invoiceUrl = `/api/v1/orders/${order.order_id}/invoice`;
    const json = await t.app.inject({ url: invoiceUrl, headers: key(buyer) });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ order_id: order.order_id, status: 'paid' });
    const html = await t.app.inject({
      url: invoiceUrl,
      headers: { ...key(buyer), accept: 'text/html' },
    });
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    const md = await t.app.inject({
      url: invoiceUrl,
      headers: { ...key(buyer), accept: 'text/markdown' },
    });
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect((await t.app.inject({ url: invoiceUrl, headers: key(seller) })).statusCode).toBe(404);
    // The order is the key's agent's, even though its wallet signed.
    const [row] = await t.runtime.deps.sql<{ buyerId: string }[]>`
      select buyer_id from orders where id = ${order.order_id}`;
    expect(row!.buyerId).toBe(buyer.agentId);
  });

  it('the live buy script: completion from extensions.spawnxchange, the whole prompt echoed in PAYMENT-SIGNATURE', async () => {
    const seller = await registerAgent(t.app);
    const buyer = await registerAgent(t.app);
    // a title of the longest kind: the echo below grows with it
    const item = await listingOf(seller, 1.5, 'Streaming CSV to JSON converter '.repeat(6));
    const body = { item_id: item, chain: 'base', currency: 'USDC' };
    const prompt = await postBuy(key(buyer), body);
    expect(prompt.statusCode).toBe(402);
    const required = promptOf(prompt) as PaymentRequired & {
      extensions: Record<string, { input: { completion_request: { example: object } } }>;
    };
    const completion = {
      ...required.extensions['spawnxchange']!.input.completion_request.example,
      policy_accepted: true,
      license_accepted: true,
    };
    const { payload } = await signPayment(buyer.wallet, required, required.accepts[0]!);
    // the SDK echoes the resource and both discovery entries back (several KB)
    const echoed = encodePaymentSignatureHeader({ ...payload, extensions: required.extensions });
    expect(echoed.length).toBeGreaterThan(6_000);
    const done = await postBuy({ ...key(buyer), 'payment-signature': echoed }, completion);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ order_id: expect.any(String) });
  });

  it('the completion must name its chain, the chain it signed for, where the seller has a wallet', async () => {
    const seller = await registerAgent(t.app);
    const buyer = await registerAgent(t.app);
    const item = await listingOf(seller);
    const noChain = await buy(
      buyer,
      { item_id: item },
      { completion: { item_id: item, policy_accepted: true, license_accepted: true } },
    );
    expect(noChain.done.statusCode).toBe(400);
    expect(noChain.done.json()).toMatchObject({ error: 'chain_required' });
    const polygon = await buy(
      buyer,
      { item_id: item },
      {
        completion: {
          item_id: item,
          chain: 'polygon',
          policy_accepted: true,
          license_accepted: true,
        },
      },
    );
    expect(polygon.done.json()).toMatchObject({ error: 'seller_wallet_missing' });
    const flags = await buy(
      buyer,
      { item_id: item },
      { completion: { item_id: item, chain: 'base' } },
    );
    expect(flags.done.json()).toMatchObject({ error: 'policy_acceptance_required' });
    const badId = await postBuy(key(buyer), { item_id: 'nope' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ error: 'invalid_item_id' });
    const own = await buy(seller, { item_id: item, chain: 'base' }, { payer: newWallet() });
    expect(own.done.statusCode).toBe(403);
    expect(own.done.json()).toMatchObject({ error: 'self_purchase_forbidden' });
  });
});

describe('a Revision A key buying its own listing', () => {
  it('is refused on the unpaid request: no 402 prompt, nothing to sign', async () => {
    // found by the s47 sweep: the seller's key got the 402 prompt and was refused only once it had
    // signed the payment
    const seller = await registerAgent(t.app);
    const item = await listingOf(seller);
    for (const body of [{ item_id: item }, { item_id: item, chain: 'base' }]) {
      const res = await postBuy(key(seller), body);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'self_purchase_forbidden' });
      expect(res.headers['payment-required']).toBeUndefined();
    }
  });
});

describe('a Revision A completion signed for another chain', () => {
  it('is refused as chain_mismatch before anything settles', async () => {
    const seller = await registerAgent(t.app, { chains: ['base', 'polygon'] });
    const buyer = await registerAgent(t.app);
    const item = await listingOf(seller);
    const prompt = await postBuy(key(buyer), { item_id: item });
    const required = promptOf(prompt);
    const polygon = required.accepts.find((a) => a.network === 'eip155:137')!;
    expect(polygon).toBeDefined();
    const signed = await signPayment(buyer.wallet, required, polygon);
    const res = await postBuy(
      { ...key(buyer), 'payment-signature': signed.header },
      { item_id: item, chain: 'base', policy_accepted: true, license_accepted: true },
    );
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'chain_mismatch',
    });
    const sql = t.runtime.deps.sql;
    const [orders] = await sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item}`;
    expect(orders!.n).toBe(0);
    const [payments] = await sql<{ n: number }[]>`
      select count(*)::int as n from x402_payments where nonce = ${signed.nonce}`;
    expect(payments!.n).toBe(0);
  });
});

describe('public acquire in Revision A', () => {
  it('provisions the payer as a buyer account it can later get a key for', async () => {
    const seller = await registerAgent(t.app);
    const item = await listingOf(seller);
    const wallet = newWallet();
    const url = `/api/v1/items/${item}/acquire`;
    const purchase = async () => {
      const prompt = await t.app.inject({ method: 'POST', url, payload: { chain: 'base' } });
      expect(prompt.statusCode).toBe(402);
      const required = promptOf(prompt);
      const { header } = await signPayment(wallet, required, required.accepts[0]!);
      return t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': header },
        payload: { chain: 'base', policy_accepted: true, license_accepted: true },
      });
    };
    const first = await purchase();
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toEqual({
      order_id: expect.any(String),
      download_url: expect.any(String),
      expires_in: expect.any(String),
      buyer_account: {
        created: true,
        username: expect.stringMatching(/^[a-z]+-[a-z]+-\d{3}$/),
        rotate_key_url: 'http://marketplace.test/api/v1/auth/rotate-key',
      },
    });
    const second = await purchase();
    expect(second.json().buyer_account).toEqual({
      ...body.buyer_account,
      created: false,
    });

    // Completion without chain is refused before anything settles.
    const prompt = await t.app.inject({ method: 'POST', url });
    const required = promptOf(prompt);
    const { header } = await signPayment(wallet, required, required.accepts[0]!);
    const noChain = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(noChain.statusCode).toBe(400);
    expect(noChain.json()).toMatchObject({ error: 'chain_required' });

    // The buyer gets a persistent key by rotate-key; the wallet cannot register a second account.
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/rotate-key',
      payload: await signedChallenge(t.app, wallet, 'rotate-key'),
    });
    expect(rotated.statusCode).toBe(200);
    const apiKey = rotated.json().api_key as string;
    const dl = await t.app.inject({
      url: `/api/v1/orders/${body.order_id}/download`,
      headers: { 'x-api-key': apiKey },
    });
    expect(dl.statusCode).toBe(200);
    const s = await signedChallenge(t.app, wallet, 'register');
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/v1/register',
      payload: {
        username: 'second-account',
        country: 'DE',
        terms_agreed: true,
        wallets: [{ chain: 'base', address: wallet.address, ...s }],
      },
    });
    expect(reg.statusCode).toBe(409);
    expect(reg.json()).toMatchObject({ error: 'wallet_already_registered' });
  });

  it('a purchase signed by a linked wallet is that agent’s, not a new account', async () => {
    const seller = await registerAgent(t.app);
    const item = await listingOf(seller);
    const buyer = await registerAgent(t.app);
    const url = `/api/v1/items/${item}/acquire`;
    const prompt = await t.app.inject({ method: 'POST', url, payload: { chain: 'base' } });
    const required = promptOf(prompt);
    const { header } = await signPayment(buyer.wallet, required, required.accepts[0]!);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { chain: 'base', policy_accepted: true, license_accepted: true },
    });
    expect(res.json().buyer_account).toMatchObject({ created: false, username: buyer.username });
  });
});

/** Links a fresh wallet to `agent` (its key plus a signed link-wallet challenge). */
async function linkedWallet(agent: Registered, chain: 'base' | 'polygon' = 'base') {
  const wallet = newWallet();
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/link-wallet',
    headers: key(agent),
    payload: await signedChallenge(t.app, wallet, 'link-wallet', chain),
  });
  expect(res.statusCode).toBe(200);
  return wallet;
}

describe('whose wallet pays a keyed purchase', () => {
  /** Orders of the item, and payments of the signature: both stay empty when a refusal is early. */
  async function nothingMoved(item: string, nonce: string) {
    const sql = t.runtime.deps.sql;
    const [orders] = await sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item}`;
    expect(orders!.n).toBe(0);
    const [payments] = await sql<{ n: number }[]>`
      select count(*)::int as n from x402_payments where nonce = ${nonce}`;
    expect(payments!.n).toBe(0);
  }

  it("account B's key cannot spend account A's linked wallet: refused before anything settles", async () => {
    const seller = await registerAgent(t.app);
    const a = await registerAgent(t.app);
    const b = await registerAgent(t.app);
    const item = await listingOf(seller);
    const aSecond = await linkedWallet(a);
    for (const payer of [a.wallet, aSecond, newWallet()]) {
      const prompt = await postBuy(key(b), { item_id: item, chain: 'base' });
      const required = promptOf(prompt);
      const signed = await signPayment(payer, required, required.accepts[0]!);
      const done = await postBuy(
        { ...key(b), 'payment-signature': signed.header },
        { item_id: item, chain: 'base', policy_accepted: true, license_accepted: true },
      );
      expect(done.statusCode).toBe(403);
      expect(done.json()).toMatchObject({ error: 'payer_not_linked' });
      await nothingMoved(item, signed.nonce);
    }
    // B's own linked wallet pays for B's order.
    const bSecond = await linkedWallet(b);
    const own = await buy(b, { item_id: item, chain: 'base' }, { payer: bSecond });
    expect(own.done.statusCode).toBe(200);
    const [row] = await t.runtime.deps.sql<{ buyerId: string; payer: string }[]>`
      select buyer_id, payer from orders where id = ${own.done.json().order_id}`;
    expect(row).toEqual({ buyerId: b.agentId, payer: bSecond.address.toLowerCase() });
  });

  it("a seller's second linked wallet cannot buy its own listing on the public acquire", async () => {
    const seller = await registerAgent(t.app);
    const item = await listingOf(seller);
    const second = await linkedWallet(seller);
    const url = `/api/v1/items/${item}/acquire`;
    const prompt = await t.app.inject({ method: 'POST', url, payload: { chain: 'base' } });
    const required = promptOf(prompt);
    const signed = await signPayment(second, required, required.accepts[0]!);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { chain: 'base', policy_accepted: true, license_accepted: true },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'self_purchase_forbidden' });
    await nothingMoved(item, signed.nonce);
  });
});
