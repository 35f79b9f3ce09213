import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketplaceError } from '../../src/client/index.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { altered } from '../helpers/forge.js';
import { createSaleItem } from '../helpers/items.js';
import { asWallet } from '../helpers/selling.js';
import { clientFor, newWallet, promptOf, signPayment } from '../helpers/wallets.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'ord-')) });
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;

async function bought(opts: { compression?: 'zip' | 'tar.gz' } = {}) {
  const item = await createSaleItem(deps(), { priceUsdc: 1.25, ...opts });
  const buyer = newWallet();
  const client = clientFor(t.app, buyer);
  const { order } = await client.acquire(item.itemId);
  return { item, buyer, client, order };
}

const rel = (url: string) => url.replace('http://marketplace.test', '');

describe('GET /api/v1/orders/{uuid} (zero-value identity)', () => {
  it('prompts a zero-value identity payment on every network, bound to this route', async () => {
    const { order } = await bought();
    const res = await t.app.inject(`/api/v1/orders/${order.order_id}`);
    expect(res.statusCode).toBe(402);
    const body = res.json();
    expect(body).toEqual(promptOf(res));
    expect(
      body.accepts.map((a: { amount: string; network: string }) => [a.network, a.amount]),
    ).toEqual([
      ['eip155:8453', '0'],
      ['eip155:137', '0'],
    ]);
    const other = promptOf(await t.app.inject(`/api/v1/orders/${(await bought()).order.order_id}`));
    expect(other.accepts[0]!.payTo).not.toBe(body.accepts[0].payTo);
  });

  it('returns fresh links to the purchasing wallet, never settles, never charges', async () => {
    const { order, client, buyer } = await bought();
    const before = await (
      deps().facilitator as import('../../src/x402/local-facilitator.js').LocalFacilitator
    ).balanceOf('eip155:8453', buyer.address);
    const links = await client.getOrder(order.order_id);
    expect(links).toEqual({
      download_url: expect.stringContaining(`/api/v1/downloads/${order.order_id}?exp=`),
      invoice_url: expect.stringContaining(`/api/v1/invoices/${order.order_id}?exp=`),
      expires_in: '15 minutes',
    });
    const after = await (
      deps().facilitator as import('../../src/x402/local-facilitator.js').LocalFacilitator
    ).balanceOf('eip155:8453', buyer.address);
    expect(after).toBe(before);
  });

  it('404 order_not_found for another agent, agent_not_found for a wallet without account', async () => {
    const { order } = await bought();
    const other = await bought();
    await expect(other.client.getOrder(order.order_id)).rejects.toMatchObject({
      status: 404,
      code: 'order_not_found',
    });
    await expect(clientFor(t.app, newWallet()).getOrder(order.order_id)).rejects.toMatchObject({
      status: 404,
      code: 'agent_not_found',
    });
    const n = (await deps().sql<{ n: number }[]>`select count(*)::int as n from agents`)[0]!.n;
    await clientFor(t.app, newWallet())
      .getOrder(order.order_id)
      .catch(() => undefined);
    expect((await deps().sql<{ n: number }[]>`select count(*)::int as n from agents`)[0]!.n).toBe(
      n,
    );
  });

  it('400 invalid_order_id for an id that is not a UUID, before any identity prompt', async () => {
    const res = await t.app.inject('/api/v1/orders/not-a-uuid');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_order_id' });
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('rejects a replayed identity signature and one made for another route', async () => {
    const { order, buyer } = await bought();
    const second = await bought();
    const url = `/api/v1/orders/${order.order_id}`;
    const required = promptOf(await t.app.inject(url));
    const signed = await signPayment(buyer, required, required.accepts[0]!);
    const ok = await t.app.inject({ url, headers: { 'payment-signature': signed.header } });
    expect(ok.statusCode).toBe(200);
    const replay = await t.app.inject({ url, headers: { 'payment-signature': signed.header } });
    expect(replay.statusCode).toBe(402);
    expect(replay.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_nonce_already_used',
    });
    // a fresh signature for the other order's route, presented here
    const otherRequired = promptOf(await t.app.inject(`/api/v1/orders/${second.order.order_id}`));
    const forOther = await signPayment(buyer, otherRequired, otherRequired.accepts[0]!);
    const misrouted = await t.app.inject({
      url,
      headers: { 'payment-signature': forOther.header },
    });
    expect(misrouted.statusCode).toBe(402);
    expect(misrouted.json().reason).toBe('requirements_not_issued');
    // a non-zero identity signature is refused
    const paid = await signPayment(buyer, required, { ...required.accepts[0]!, amount: '1' });
    expect(
      (await t.app.inject({ url, headers: { 'payment-signature': paid.header } })).json().reason,
    ).toBe('requirements_not_issued');
  });
});

describe("GET /api/v1/orders (the signing wallet's purchases)", () => {
  it("lists only the signer's completed orders, newest first, without links; filters by item", async () => {
    const first = await bought();
    const again = await createSaleItem(deps(), { priceUsdc: 0.75, title: 'Second buy' });
    const { order: second } = await first.client.acquire(again.itemId);
    const stranger = await bought();

    const probe = await t.app.inject('/api/v1/orders');
    expect(probe.statusCode).toBe(402);
    expect(promptOf(probe).accepts.every((a) => a.amount === '0')).toBe(true);

    const mine = await asWallet(t, first.buyer, 'GET', '/api/v1/orders');
    expect(mine.statusCode, mine.body).toBe(200);
    const body = mine.json() as { orders: Array<Record<string, unknown>>; pagination: unknown };
    expect(body.orders.map((o) => o.order_id)).toEqual([second.order_id, first.order.order_id]);
    expect(body.orders[0]).toEqual({
      order_id: second.order_id,
      item_id: again.itemId,
      title: 'Second buy',
      price_usdc: 0.75,
      chain: 'base',
      network: 'eip155:8453',
      transaction: expect.stringMatching(/^0x/),
      completed_at: expect.any(String),
    });
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 2 });
    expect(mine.body).not.toContain('download_url');
    expect(mine.body).not.toContain(stranger.order.order_id);

    const one = await asWallet(
      t,
      first.buyer,
      'GET',
      `/api/v1/orders?item_id=${first.item.itemId}&limit=1`,
    );
    expect(one.json()).toMatchObject({
      orders: [{ order_id: first.order.order_id }],
      pagination: { limit: 1, offset: 0, total: 1 },
    });
  });

  it('bad query parameters are 400 before any identity prompt', async () => {
    for (const [q, code] of [
      ['limit=0', 'invalid_limit'],
      ['offset=-1', 'invalid_offset'],
      ['item_id=nope', 'invalid_item_id'],
    ]) {
      const res = await t.app.inject(`/api/v1/orders?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ error: code });
    }
  });
});

describe('downloads', () => {
  it('streams the archive with content type, filename and SHA-256', async () => {
    const { item, order, client } = await bought();
    const dl = await client.download(order.download_url);
    expect(dl.bytes.equals(item.bytes)).toBe(true);
    expect(dl.sha256).toBe(item.sha256);
    expect(dl.statedSha256).toBe(item.sha256);
    expect(dl.contentType).toBe('application/zip');
    expect(dl.fileName).toBe('project.zip');
    const head = await t.app.inject({ method: 'HEAD', url: rel(order.download_url) });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(item.bytes.length));
    const res = await t.app.inject(rel(order.download_url));
    expect(res.headers['repr-digest']).toBe(
      `sha-256=:${createHash('sha256').update(item.bytes).digest('base64')}:`,
    );
  });

  it('tar.gz archives get application/gzip', async () => {
    const { order, client } = await bought({ compression: 'tar.gz' });
    const dl = await client.download(order.download_url);
    expect(dl.contentType).toBe('application/gzip');
    expect(dl.fileName).toBe('project.tar.gz');
  });

  it('a tampered, re-targeted, unknown or expired link gets 403 and no bytes', async () => {
    const { order } = await bought();
    const other = await bought();
    const url = new URL(order.download_url);
    const sig = url.searchParams.get('sig')!;
    const exp = url.searchParams.get('exp')!;
    const forgedSig = altered(sig, -1);
    expect(forgedSig).not.toBe(sig);
    const tampered = await t.app.inject(`${url.pathname}?exp=${exp}&sig=${forgedSig}`);
    expect(tampered.statusCode).toBe(403);
    expect(tampered.json().error).toBe('invalid_link');
    const longer = await t.app.inject(`${url.pathname}?exp=${Number(exp) + 3600}&sig=${sig}`);
    expect(longer.statusCode).toBe(403);
    const retargeted = await t.app.inject(
      `/api/v1/downloads/${other.order.order_id}?exp=${exp}&sig=${sig}`,
    );
    expect(retargeted.statusCode).toBe(403);
    const asInvoice = await t.app.inject(
      `/api/v1/invoices/${order.order_id}?exp=${exp}&sig=${sig}`,
    );
    expect(asInvoice.statusCode).toBe(403);
    const unsigned = await t.app.inject(url.pathname);
    expect(unsigned.statusCode).toBe(403);
    const unknown = await t.app.inject(
      `/api/v1/downloads/5b0e4c52-9a77-4f4e-9c1e-3c3b1b1b1b1b?exp=${exp}&sig=${sig}`,
    );
    // an unknown order reads as a bad signature: a link never tells whether an order exists
    expect(unknown.statusCode).toBe(403);
    expect(unknown.json()).toEqual(tampered.json());
    for (const r of [tampered, longer, retargeted, unsigned, unknown])
      expect(r.headers['content-type']).toMatch(/json/);

    const { signLink } = await import('../../src/domain/links/signed-links.js');
    const expired = signLink(
      deps().secrets.urlSigningKey,
      'http://marketplace.test',
      {
        kind: 'download',
        id: order.order_id,
        fileSha256: (
          await deps().sql<
            { s: string }[]
          >`select i.archive_sha256 as s from orders o join items i on i.id = o.item_id where o.id = ${order.order_id}`
        )[0]!.s,
      },
      60,
      Date.now() - 120_000,
    );
    const gone = await t.app.inject(rel(expired));
    expect(gone.statusCode).toBe(403);
    expect(gone.json().error).toBe('link_expired');
  });
});

describe('invoices', () => {
  it('renders JSON by default, HTML and Markdown by Accept, with the purchase facts', async () => {
    const { item, order, buyer } = await bought();
    const url = rel(order.invoice_url);
    const json = await t.app.inject(url);
    expect(json.headers['content-type']).toMatch(/application\/json/);
    const inv = json.json();
    const [seller] = await deps().sql<
      { username: string }[]
    >`select username from agents where id = ${item.seller.id}`;
    expect(inv).toMatchObject({
      order_id: order.order_id,
      status: 'paid',
      item: { id: item.itemId, title: 'Test artifact', sha256: item.sha256 },
      seller: { username: seller!.username },
      buyer: { address: buyer.address.toLowerCase() },
      amount: { currency: 'USDC', total: '1.250000', total_raw: '1250000', decimals: 6 },
      payment: {
        chain: 'base',
        network: 'eip155:8453',
        payer: buyer.address.toLowerCase(),
        transaction: expect.stringMatching(/^0x/),
      },
      legal: {
        policy_version: 'v1',
        policy_url: 'http://marketplace.test/terms/v1',
        license_version: 'v1',
        license_url: 'http://marketplace.test/license/v1',
      },
    });
    const html = await t.app.inject({ url, headers: { accept: 'text/html' } });
    expect(html.headers['content-type']).toMatch(/text\/html/);
    expect(html.body).toContain(inv.payment.transaction);
    expect(html.body).toContain(seller!.username);
    const md = await t.app.inject({ url, headers: { accept: 'text/markdown, text/html;q=0.5' } });
    expect(md.headers['content-type']).toMatch(/text\/markdown/);
    expect(md.body).toContain('| Amount | 1.250000 USDC');
    const pref = await t.app.inject({ url, headers: { accept: 'text/markdown;q=0.2, text/html' } });
    expect(pref.headers['content-type']).toMatch(/text\/html/);
  });
});

it('client errors carry the spec code', async () => {
  const err = await clientFor(t.app, newWallet())
    .acquire('5b0e4c52-9a77-4f4e-9c1e-3c3b1b1b1b1b')
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MarketplaceError);
  expect(err).toMatchObject({ status: 404, code: 'item_not_found' });
});
