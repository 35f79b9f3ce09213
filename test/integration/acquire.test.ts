import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownAddressBinding } from '../../src/domain/accounts/accounts.js';
import { saleStillValid } from '../../src/domain/orders/acquire.js';
import type { Micro } from '../../src/wire/money.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { clientFor, newWallet, promptOf, signPayment } from '../helpers/wallets.js';

let t: TestContext;
let local: LocalFacilitator;
let rpc: FakeRpc;
beforeAll(async () => {
  rpc = await startFakeRpc();
  t = await startTestApp({
    RPC_URL_BASE: rpc.url,
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'acq-')),
    REGION_DENY_LIST: 'KP,IR',
    LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
  });
  local = t.runtime.deps.facilitator as LocalFacilitator;
});
afterAll(async () => {
  await t?.close();
  await rpc?.close();
});

const deps = () => t.runtime.deps;
const acquireUrl = (id: string) => `/api/v1/items/${id}/acquire`;

describe('acquire prompt', () => {
  it('answers 402 with the PaymentRequired in body and header, no-store, CORS exposure', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const res = await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) });
    expect(res.statusCode).toBe(402);
    const body = res.json();
    const header = promptOf(res);
    expect(body).toEqual(header);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/PAYMENT-REQUIRED/);
    expect(String(res.headers['payment-required']).length).toBeLessThan(8192);
    expect(body.x402Version).toBe(2);
    expect(body.error).toBe('payment_required');
    expect(body.resource.url).toBe(`http://marketplace.test${acquireUrl(item.itemId)}`);
    expect(body.accepts).toHaveLength(2);
    const [base, polygon] = body.accepts;
    expect(base).toMatchObject({
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '500000',
      extra: { name: 'USD Coin', version: '2' },
    });
    expect(polygon).toMatchObject({
      network: 'eip155:137',
      asset: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    });
    const payouts = await t.runtime.deps.sql<{ chain: string; address: string }[]>`
      select chain, address from payout_addresses where agent_id = ${item.seller.id}`;
    expect(base.payTo).toBe(payouts.find((p) => p.chain === 'base')!.address);
    const info = body.extensions.bazaar.info;
    expect(info.input.completion_request.example).toEqual({
      chain: 'base',
      policy_accepted: true,
      license_accepted: true,
    });
    expect(info.legal).toEqual({
      policy: { version: 'v1', url: 'http://marketplace.test/terms/v1' },
      license: { version: 'v1', url: 'http://marketplace.test/license/v1' },
    });
    expect(info.item.id).toBe(item.itemId);
    expect(info.provider.url).toBe('http://marketplace.test');
  });

  it('puts a hinted chain first, falls back when the seller cannot take it', async () => {
    const item = await createSaleItem(deps());
    const hinted = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      payload: { chain: 'polygon' },
    });
    expect(hinted.json().accepts.map((a: { network: string }) => a.network)).toEqual([
      'eip155:137',
      'eip155:8453',
    ]);
    const baseOnly = await createSaleItem(deps(), { salesChains: ['base'] });
    const fallback = await t.app.inject({
      method: 'POST',
      url: acquireUrl(baseOnly.itemId),
      payload: { chain: 'polygon' },
    });
    expect(fallback.statusCode).toBe(402);
    expect(fallback.json().accepts.map((a: { network: string }) => a.network)).toEqual([
      'eip155:8453',
    ]);
  });

  it('accepts {} and legal flags before payment without recording them; refuses other currencies', async () => {
    const item = await createSaleItem(deps());
    const empty = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(402);
    const flags = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(flags.statusCode).toBe(402);
    const n = (
      await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from legal_acceptances l join orders o on o.id = l.order_id
        where o.item_id = ${item.itemId}`
    )[0]!.n;
    expect(n).toBe(0);
    const eur = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      payload: { currency: 'EUR' },
    });
    expect(eur.statusCode).toBe(400);
    expect(eur.json().error).toBe('unsupported_currency');
  });

  it('409 seller_wallet_missing when the seller accepts sales on no chain, with no prompt', async () => {
    const item = await createSaleItem(deps(), { salesChains: [] });
    const res = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      payload: { chain: 'base' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'seller_wallet_missing' });
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('404 for unknown or inactive items, 403 region_unavailable before any prompt', async () => {
    const unknown = await t.app.inject({
      method: 'POST',
      url: acquireUrl('7d1c0e0e-1111-4111-8111-111111111111'),
    });
    expect(unknown.statusCode).toBe(404);
    const item = await createSaleItem(deps());
    await t.runtime.deps.sql`update items set status = 'deleted' where id = ${item.itemId}`;
    expect((await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) })).statusCode).toBe(
      404,
    );
    const live = await createSaleItem(deps());
    const denied = await t.app.inject({
      method: 'POST',
      url: acquireUrl(live.itemId),
      headers: { 'cf-ipcountry': 'kp' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      error: 'region_unavailable',
      message: expect.any(String),
    });
    expect(denied.headers['payment-required']).toBeUndefined();
  });
});

describe('acquire completion', () => {
  it('buys with the typed client: 200, PAYMENT-RESPONSE, order, buyer provisioned, audit row, ledger moved', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const { order, settlement } = await clientFor(t.app, buyer).acquire(item.itemId);
    expect(order).toEqual({
      order_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      download_url: expect.stringContaining(`/api/v1/downloads/${order.order_id}?exp=`),
      invoice_url: expect.stringContaining(`/api/v1/invoices/${order.order_id}?exp=`),
      expires_in: '15 minutes',
    });
    expect(settlement).toMatchObject({
      success: true,
      network: 'eip155:8453',
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const [agent] = await t.runtime.deps.sql<
      { username: string }[]
    >`select username from agents where address = ${buyer.address.toLowerCase()}`;
    expect(agent!.username).toMatch(/^[a-z]+-[a-z]+-\d{3}$/);
    const [audit] = await t.runtime.deps
      .sql`select * from legal_acceptances where order_id = ${order.order_id}`;
    expect(audit).toMatchObject({
      payer: buyer.address.toLowerCase(),
      policyVersion: 'v1',
      policyUrl: 'http://marketplace.test/terms/v1',
      licenseVersion: 'v1',
      licenseUrl: 'http://marketplace.test/license/v1',
    });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(10_000_000 - 500_000);
    const payTo = (
      await t.runtime.deps.sql<
        { payTo: string }[]
      >`select pay_to from orders where id = ${order.order_id}`
    )[0]!.payTo;
    // the seller's payout address started empty and holds exactly the sale
    expect(await local.balanceOf('eip155:8453', payTo)).toBe(500_000);
  });

  it("keys the legal audit row by its order alone: one index entry per purchase, one row per order, the invoice's terms read through it", async () => {
    const { sql } = deps();
    const item = await createSaleItem(deps());
    const buyer = newWallet();
    const { order } = await clientFor(t.app, buyer).acquire(item.itemId);
    // the row's only index is its order's: no random id drawn and indexed per purchase
    const indexes = await sql<{ name: string; primary: boolean; def: string }[]>`
      select indexrelid::regclass::text as name, indisprimary as primary, pg_get_indexdef(indexrelid) as def
      from pg_index where indrelid = 'legal_acceptances'::regclass`;
    expect(indexes).toEqual([
      {
        name: 'legal_acceptances_pkey',
        primary: true,
        def: expect.stringMatching(/\(order_id\)$/),
      },
    ]);
    // still one audit row per order
    await expect(
      sql`insert into legal_acceptances (order_id, payer, policy_version, policy_url, license_version, license_url, accepted_at)
          select order_id, payer, policy_version, policy_url, license_version, license_url, accepted_at
          from legal_acceptances where order_id = ${order.order_id}`,
    ).rejects.toMatchObject({ code: '23505' });
    const plan = await sql<{ plan: string }[]>`
      explain (costs off) select l.license_version from orders o
      join legal_acceptances l on l.order_id = o.id where o.id = ${order.order_id}`;
    expect(plan.map((r) => Object.values(r)[0]).join('\n')).toMatch(
      /Index Scan using legal_acceptances_pkey on legal_acceptances/,
    );
    const invoice = await t.app.inject({
      method: 'GET',
      url: new URL(order.invoice_url).pathname + new URL(order.invoice_url).search,
    });
    expect(invoice.statusCode).toBe(200);
    expect(invoice.body).toContain('http://marketplace.test/license/v1');
  });

  it("re-checks the sale through the item's key, in the generic plan too, among many active listings at its price", async () => {
    const { sql } = deps();
    const item = await createSaleItem(deps(), { priceUsdc: 0.43 });
    // 400 more active listings of the same seller at the same price (what a price filter finds)
    await sql`
      insert into items (seller_id, status, status_reason, title, description, tech_stack, price_micro,
                         archive_sha256, archive_key, archive_size, compression, file_name)
      select seller_id, status, status_reason, title, description, tech_stack, price_micro,
             encode(sha256(convert_to(id::text || g::text, 'utf8')), 'hex'), archive_key, archive_size,
             compression, file_name
      from items, generate_series(1, 400) g where id = ${item.itemId}`;
    const [pay] = await sql<{ payTo: string }[]>`
      select pay_to from payable_chains where agent_id = ${item.seller.id} and chain = 'base'`;
    const check = (id: string, amount: number) =>
      saleStillValid(sql, { id, sellerId: item.seller.id }, 'base', pay!.payTo, amount as Micro);
    // the statement's text and values as postgres.js sends them
    let sent: { text: string; parameters: unknown[] } | undefined;
    const options = sql.options as { debug?: unknown };
    options.debug = (_c: number, text: string, parameters: unknown[]) =>
      (sent = { text, parameters: [...parameters] });
    try {
      const [row] = await sql<
        { ok: boolean }[]
      >`select ${check(item.itemId, item.priceMicro)} as ok`;
      expect(row!.ok).toBe(true);
    } finally {
      delete options.debug;
    }
    for (const [id, amount] of [
      [item.itemId, item.priceMicro + 1],
      ['00000000-0000-4000-8000-000000000000', item.priceMicro],
    ] as const) {
      const [row] = await sql<{ ok: boolean | null }[]>`select ${check(id, amount)} as ok`;
      expect(row!.ok).toBe(false);
    }
    const literals = sent!.parameters.map((v) => `'${String(v).replace(/'/g, "''")}'`).join(', ');
    const plans: string[] = [];
    for (const stats of [false, true]) {
      if (stats) await sql`analyze items`;
      for (const mode of ['force_generic_plan', 'force_custom_plan']) {
        await sql.begin(async (tx) => {
          await tx.unsafe(`set local plan_cache_mode = ${mode}`);
          await tx.unsafe(`prepare sale_check as ${sent!.text}`);
          const rows = await tx.unsafe(`explain (costs off) execute sale_check(${literals})`);
          await tx.unsafe('deallocate sale_check');
          plans.push(
            `${mode}, statistics ${stats}:\n${rows.map((r) => Object.values(r)[0]).join('\n')}`,
          );
        });
      }
    }
    for (const plan of plans) {
      expect(plan).toMatch(
        /Index (Only )?Scan using items_(pkey|id_seller_id_key) on items i\n\s+Index Cond: \(id = /,
      );
      expect(plan).not.toMatch(/items_active_price|Seq Scan on items|Bitmap/);
    }
  });

  it("binds a first-time buyer's wallet in the purchase's statement, with two index entries: its address, and (agent, address) that a linked wallet's key names", async () => {
    const { sql } = deps();
    const item = await createSaleItem(deps());
    const buyer = newWallet();
    await clientFor(t.app, buyer).acquire(item.itemId);
    const address = buyer.address.toLowerCase();
    const indexes = await sql<{ name: string; def: string }[]>`
      select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def
      from pg_index where indrelid = 'wallet_bindings'::regclass order by 1`;
    expect(indexes).toEqual([
      {
        name: 'wallet_bindings_agent_id_address_key',
        def: expect.stringMatching(/UNIQUE.*\(agent_id, address\)$/),
      },
      { name: 'wallet_bindings_pkey', def: expect.stringMatching(/UNIQUE.*\(address\)$/) },
    ]);
    const [agent] = await sql<{ id: string }[]>`select id from agents where address = ${address}`;
    const [binding] = await sql`select agent_id from wallet_bindings where address = ${address}`;
    expect(binding).toEqual({ agentId: agent!.id });
    // an agent's bindings are found through the pair's index, agent first
    const plan = await sql<{ plan: string }[]>`
      explain (costs off) select address from wallet_bindings where agent_id = ${agent!.id}`;
    expect(plan.map((r) => Object.values(r)[0]).join('\n')).toMatch(
      /wallet_bindings_agent_id_address_key/,
    );
    // a linked wallet still names its binding's pair: not another agent's
    const other = await createSaleItem(deps());
    const [seller] = await sql<{ sellerId: string }[]>`
      select seller_id from items where id = ${other.itemId}`;
    await expect(
      sql`insert into linked_wallets (address, chain, agent_id) values (${address}, 'base', ${seller!.sellerId})`,
    ).rejects.toMatchObject({ code: '23503' });
    await sql`insert into linked_wallets (address, chain, agent_id) values (${address}, 'base', ${agent!.id})`;
    await sql`delete from linked_wallets where address = ${address}`;
    // every insert of an account binds its address in its own statement (no trigger since
    // migration 481): an address another agent holds fails it whole; a free one is bound to it
    const held = newWallet().address.toLowerCase();
    await sql`insert into wallet_bindings (address, agent_id, kind) values (${held}, ${agent!.id}, 'controller')`;
    const account = (address: string, username: string) => sql<{ id: string }[]>`
      with made as (
        insert into agents (address, username) values (${address}, ${username}) returning id, address
      ), bound as (
        ${ownAddressBinding(sql, 'made')}
      )
      select id from made`;
    await expect(account(held, `held-${Date.now()}`)).rejects.toMatchObject({ code: '23505' });
    expect(await sql`select 1 from agents where address = ${held}`).toHaveLength(0);
    const free = newWallet().address.toLowerCase();
    const [made] = await account(free, `free-${Date.now()}`);
    const [bound] = await sql`select agent_id, kind from wallet_bindings where address = ${free}`;
    expect(bound).toEqual({ agentId: made!.id, kind: 'wallet' });
    const triggers = await sql`
      select tgname from pg_trigger where tgrelid = 'agents'::regclass and not tgisinternal`;
    expect(triggers).toEqual([]);
  });

  it('binds an account that has none (left by a build without the binding in its statement) at its next purchase, and orders to that account', async () => {
    const { sql } = deps();
    const items = await Promise.all([1, 2].map(() => createSaleItem(deps())));
    const buyer = newWallet();
    const address = buyer.address.toLowerCase();
    // as a replica of the previous build inserts an account once migration 481 dropped the trigger
    const [old] = await sql<{ id: string }[]>`
      insert into agents (address, username) values (${address}, ${`unbound-${Date.now()}`}) returning id`;
    expect(await sql`select 1 from wallet_bindings where address = ${address}`).toHaveLength(0);
    const client = clientFor(t.app, buyer);
    const first = await client.acquire(items[0]!.itemId);
    expect(
      await sql`select agent_id, kind from wallet_bindings where address = ${address}`,
    ).toEqual([{ agentId: old!.id, kind: 'wallet' }]);
    const second = await client.acquire(items[1]!.itemId);
    const buyers = await sql<{ buyerId: string }[]>`
      select distinct buyer_id from orders
      where id in ${sql([first.order.order_id, second.order.order_id])}`;
    expect(buyers).toEqual([{ buyerId: old!.id }]);
    expect(await sql`select 1 from agents where address = ${address}`).toHaveLength(1);
  });

  it("a new wallet's concurrent first purchases make one account with one payout address per chain, each empty on the dev ledger without a row written for it", async () => {
    const { sql } = deps();
    const items = await Promise.all([1, 2, 3].map(() => createSaleItem(deps())));
    const buyer = newWallet();
    const client = clientFor(t.app, buyer);
    const orders = await Promise.all(items.map((i) => client.acquire(i.itemId)));
    expect(orders.map((o) => o.order.order_id)).toHaveLength(3);
    const address = buyer.address.toLowerCase();
    const agents = await sql<{ id: string }[]>`select id from agents where address = ${address}`;
    expect(agents).toHaveLength(1);
    const payouts = await sql<{ chain: string; address: string; rows: number }[]>`
      select p.chain, p.address, (select count(*)::int from dev_ledger_balances d
                                  where d.address = lower(p.address)) as rows
      from payout_addresses p where p.agent_id = ${agents[0]!.id} order by p.chain`;
    // the purchase writes no ledger row for them (migration 479): a payout contract starts empty,
    // which the ledger works out when it first reads the address
    expect(payouts.map((p) => [p.chain, p.rows])).toEqual([
      ['base', 0],
      ['polygon', 0],
    ]);
    expect(await local.balanceOf('eip155:8453', payouts[0]!.address)).toBe(0);
    expect(await local.balanceOf('eip155:137', payouts[1]!.address)).toBe(0);
    // a never-seen address that is no payout address still has the start balance
    expect(await local.balanceOf('eip155:8453', newWallet().address)).toBeGreaterThan(0);
    const buyers = await sql<{ buyerId: string }[]>`
      select distinct buyer_id from orders where id in ${sql(orders.map((o) => o.order.order_id))}`;
    expect(buyers).toEqual([{ buyerId: agents[0]!.id }]);
  });

  it('takes the chain from the signed payment', async () => {
    const item = await createSaleItem(deps());
    const { order, settlement } = await clientFor(t.app, newWallet()).acquire(item.itemId, {
      chain: 'polygon',
    });
    expect(settlement!.network).toBe('eip155:137');
    const [row] = await t.runtime.deps.sql<
      { chain: string }[]
    >`select chain from orders where id = ${order.order_id}`;
    expect(row!.chain).toBe('polygon');
  });

  it('requires both legal flags on completion and settles nothing without them', async () => {
    const item = await createSaleItem(deps());
    const buyer = newWallet();
    const prompt = await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) });
    const required = promptOf(prompt);
    const { header } = await signPayment(buyer, required, required.accepts[0]!);
    const noPolicy = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      headers: { 'payment-signature': header },
      payload: { license_accepted: true },
    });
    expect(noPolicy.statusCode).toBe(400);
    expect(noPolicy.json().error).toBe('policy_acceptance_required');
    const noLicense = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true },
    });
    expect(noLicense.json().error).toBe('license_acceptance_required');
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(10_000_000);
    // the same signature still works once the flags are there: nothing was consumed
    const ok = await t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(ok.statusCode).toBe(200);
    expect(decodePaymentResponseHeader(String(ok.headers['payment-response'])).success).toBe(true);
  });
});

describe('acquire verification (402 payment_verification_failed, nothing settled)', () => {
  const completion = { policy_accepted: true, license_accepted: true };
  async function setup(priceUsdc = 0.5) {
    const item = await createSaleItem(deps(), { priceUsdc });
    const required = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    return { item, required, requirement: required.accepts[0]! };
  }
  const complete = (itemId: string, header: string) =>
    t.app.inject({
      method: 'POST',
      url: acquireUrl(itemId),
      headers: { 'payment-signature': header },
      payload: completion,
    });
  const expectRejected = async (
    res: { statusCode: number; json(): unknown },
    reason: string | RegExp,
  ) => {
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: expect.stringMatching(reason),
    });
  };

  it('rejects a wrong amount, recipient, network, token domain and signer', async () => {
    const { item, required, requirement } = await setup();
    const buyer = newWallet();
    const cheap = await signPayment(buyer, required, { ...requirement, amount: '1' });
    await expectRejected(await complete(item.itemId, cheap.header), /requirements_not_issued/);
    const cheapSigned = await signPayment(buyer, required, requirement, {
      authorization: { value: '1' },
    });
    await expectRejected(await complete(item.itemId, cheapSigned.header), /value_mismatch/);
    const elsewhere = await signPayment(buyer, required, requirement, {
      authorization: { to: newWallet().address },
    });
    await expectRejected(await complete(item.itemId, elsewhere.header), /recipient_mismatch/);
    const otherNet = await signPayment(buyer, required, { ...requirement, network: 'eip155:1' });
    await expectRejected(await complete(item.itemId, otherNet.header), /network_mismatch/);
    const wrongChainSig = await signPayment(buyer, required, requirement, {
      domain: { chainId: 137 },
    });
    await expectRejected(
      await complete(item.itemId, wrongChainSig.header),
      /invalid_exact_evm_signature/,
    );
    const impostor = await signPayment(buyer, required, requirement, { signer: newWallet() });
    await expectRejected(
      await complete(item.itemId, impostor.header),
      /invalid_exact_evm_signature/,
    );
    const garbage = await complete(item.itemId, 'not-base64!!');
    await expectRejected(garbage, /invalid_payment_signature_header/);
    expect(garbage.headers['payment-required']).toBeDefined();
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(10_000_000);
  });

  it('rejects expired and not-yet-valid windows, and windows longer than advertised', async () => {
    const { item, required, requirement } = await setup();
    const buyer = newWallet();
    const now = Math.floor(Date.now() / 1000);
    const expired = await signPayment(buyer, required, requirement, {
      authorization: { validBefore: String(now - 10) },
    });
    await expectRejected(await complete(item.itemId, expired.header), /valid_before/);
    const future = await signPayment(buyer, required, requirement, {
      authorization: { validAfter: String(now + 3600) },
    });
    await expectRejected(await complete(item.itemId, future.header), /valid_after/);
    const forever = await signPayment(buyer, required, requirement, {
      authorization: { validBefore: String(now + 86_400) },
    });
    await expectRejected(await complete(item.itemId, forever.header), /valid_before/);
  });

  it('rejects a signature made for another item (another seller and route)', async () => {
    const a = await setup();
    const b = await setup();
    const forA = await signPayment(newWallet(), a.required, a.requirement);
    await expectRejected(await complete(b.item.itemId, forA.header), /requirements_not_issued/);
  });

  it('refuses a replay of a used nonce on another purchase: 409 authorization_already_used', async () => {
    const { item, required, requirement } = await setup();
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, requirement);
    expect((await complete(item.itemId, signed.header)).statusCode).toBe(200);
    const paidOnce = await local.balanceOf('eip155:8453', buyer.address);
    // same seller and price, other item: the same nonce signed for the twin's own prompt is spent
    const twin = await createSaleItem(deps(), {
      sellerAddress: item.seller.address,
      priceUsdc: 0.5,
    });
    const twinPrompt = promptOf(
      await t.app.inject({ method: 'POST', url: acquireUrl(twin.itemId) }),
    );
    const again = await signPayment(buyer, twinPrompt, twinPrompt.accepts[0]!, {
      authorization: { nonce: signed.nonce },
    });
    const replay = await complete(twin.itemId, again.header);
    expect(replay.statusCode).toBe(409);
    expect(replay.json()).toEqual({
      error: 'authorization_already_used',
      message: expect.stringMatching(/already used for another request/),
    });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(paidOnce);
    const [orders] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${twin.itemId}`;
    expect(orders!.n).toBe(0);
  });

  it("refuses a signature made from another listing's prompt (same seller, same price)", async () => {
    const { item, required, requirement } = await setup();
    const twin = await createSaleItem(deps(), {
      sellerAddress: item.seller.address,
      priceUsdc: 0.5,
    });
    const buyer = newWallet();
    const before = await local.balanceOf('eip155:8453', buyer.address);
    // Signed from item A's prompt, sent to item B: the two prompts pay the same address the same
    // amount, so only the binding to the resource tells them apart.
    const signed = await signPayment(buyer, required, requirement);
    const res = await complete(twin.itemId, signed.header);
    await expectRejected(res, /^resource_mismatch_(item_id|url)$/);
    // Even with the resource echo stripped, the item bound in the requirement gives it away.
    const stripped = JSON.parse(Buffer.from(signed.header, 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    delete stripped.resource;
    const header = Buffer.from(JSON.stringify(stripped)).toString('base64');
    await expectRejected(await complete(twin.itemId, header), 'resource_mismatch_item_id');
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(before);
    const orders = await deps().sql`select 1 from orders where item_id = ${twin.itemId}`;
    expect(orders.length).toBe(0);
    // The same signature still buys the listing it was made for.
    expect((await complete(item.itemId, signed.header)).statusCode).toBe(200);
  });

  it('reports insufficient dev-ledger funds as a verification failure', async () => {
    const { item, required, requirement } = await setup(20);
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, requirement);
    await expectRejected(await complete(item.itemId, signed.header), /insufficient_balance/);
    await local.setBalance('eip155:8453', buyer.address, 25_000_000);
    expect((await complete(item.itemId, signed.header)).statusCode).toBe(200);
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(5_000_000);
  });

  it('accepts signatures without the 0x prefix', async () => {
    const { item, required, requirement } = await setup();
    const signed = await signPayment(newWallet(), required, requirement, { bareSignature: true });
    expect((await complete(item.itemId, signed.header)).statusCode).toBe(200);
  });

  it('refuses buying your own listing before settlement', async () => {
    const seller = newWallet();
    const item = await createSaleItem(deps(), { sellerAddress: seller.address });
    const required = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
    const signed = await signPayment(seller, required, required.accepts[0]!);
    const res = await complete(item.itemId, signed.header);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('self_purchase_forbidden');
    expect(await local.balanceOf('eip155:8453', seller.address)).toBe(10_000_000);
  });

  it('rejects a completion on a chain the seller does not accept, before settlement', async () => {
    const item = await createSaleItem(deps(), { salesChains: ['base'] });
    const other = await createSaleItem(deps());
    // a polygon requirement (same shape the server would issue if polygon were accepted)
    const required = promptOf(
      await t.app.inject({ method: 'POST', url: acquireUrl(other.itemId) }),
    );
    const [payout] = await t.runtime.deps.sql<{ address: string }[]>`
      select address from payout_addresses where agent_id = ${item.seller.id} and chain = 'polygon'`;
    const polygonReq = { ...required.accepts[1]!, payTo: payout!.address };
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, polygonReq);
    await expectRejected(await complete(item.itemId, signed.header), /network_mismatch/);
    expect(await local.balanceOf('eip155:137', buyer.address)).toBe(10_000_000);
  });
});

describe('smart-account payers (EIP-1271 / ERC-6492 over RPC)', () => {
  it('accepts a smart account whose owner signed, on a chain with RPC; refuses a stranger or no RPC', async () => {
    const owner = newWallet();
    const account = `0x${'5a'.repeat(20)}`;
    rpc.accounts.set(account, owner.address);
    const item = await createSaleItem(deps());
    const url = acquireUrl(item.itemId);
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const send = (header: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': header },
        payload: { policy_accepted: true, license_accepted: true },
      });

    const stranger = await signPayment(owner, required, required.accepts[0]!, {
      authorization: { from: account },
      signer: newWallet(),
    });
    expect((await send(stranger.header)).json()).toEqual({
      error: 'payment_verification_failed',
      message: expect.any(String),
      reason: 'invalid_exact_evm_signature',
    });
    const onPolygon = await signPayment(owner, required, required.accepts[1]!, {
      authorization: { from: account },
    });
    expect((await send(onPolygon.header)).json().reason).toBe('invalid_exact_evm_signature');

    const calls = rpc.calls;
    const good = await signPayment(owner, required, required.accepts[0]!, {
      authorization: { from: account },
    });
    const res = await send(good.header);
    expect(res.statusCode).toBe(200);
    expect(rpc.calls).toBeGreaterThan(calls);
    const [buyer] = await t.runtime.deps.sql<{ buyerAddress: string }[]>`
      select a.address as buyer_address from orders o join agents a on a.id = o.buyer_id where o.id = ${res.json().order_id}`;
    expect(buyer!.buyerAddress).toBe(account);
  });
});
