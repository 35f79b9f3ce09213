import { mkdtempSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  generatePaymentId,
  isPaymentIdentifierRequired,
  PAYMENT_IDENTIFIER,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { pruneIdentifiers } from '../../src/domain/payments/identifiers.js';
import { reconcileNow } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import type { FakeFacilitator } from '../helpers/fake-facilitator.js';
import type { FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { at, startRemoteRail, validBeforeOf, type RemoteRail } from '../helpers/remote-rail.js';
import { idPayer, moneyOf, nonceTouched, withRawId } from '../helpers/payment-id.js';
import {
  ON_POSTGRES,
  PG_TEST_ADMIN_TOKEN,
  PG_TEST_ATTESTATION_KEY,
  PG_TEST_SIGNING_SECRET,
} from '../helpers/postgres.js';
import { registerAgent } from '../helpers/revision-a.js';
import { startSellingApp, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf } from '../helpers/wallets.js';

/**
 * The x402 `payment-identifier` extension (issue 27), with the official packages: every paid
 * prompt declares it (optional), a payment carrying an id is run once per (payer, id): the same id
 * signed afresh for the same purchase answers the first order and moves no money (the fresh
 * authorization is never claimed nor settled); the same id for another purchase is 409
 * `payment_identifier_conflict` and a malformed id 400 `invalid_payment_identifier`, both before
 * anything moves. It holds under concurrency, across two app instances on one database and across
 * a restart. Runs on the Postgres tier too (TEST_TIER=postgres: real replicas on one database).
 */
const LEGAL = { policy_accepted: true, license_accepted: true };
/** An EIP-3009 payment's `validBefore` (unix seconds). */
const START = 10_000_000;

describe.each(['B', 'A'] as const)('Revision %s acquire', (revision) => {
  let t: SellingContext;
  let local: LocalFacilitator;
  beforeAll(async () => {
    t = await startSellingApp({
      CONTRACT_REVISION: revision,
      LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
    });
    local = t.runtime.deps.facilitator as LocalFacilitator;
  });
  afterAll(() => t?.close());

  const saleItem = async (priceUsdc = 0.5) => {
    const seller = revision === 'A' ? (await registerAgent(t.app)).wallet.address : undefined;
    return createSaleItem(t.runtime.deps, { priceUsdc, ...(seller && { sellerAddress: seller }) });
  };
  const body = { ...LEGAL, ...(revision === 'A' && { chain: 'base' }) };
  const acquire = (itemId: string, header?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/items/${itemId}/acquire`,
      payload: header ? body : {},
      ...(header && { headers: { 'payment-signature': header } }),
    });
  const promptFor = async (itemId: string) => promptOf(await acquire(itemId));

  it('the prompt declares payment-identifier (optional) as the package writes it', async () => {
    const item = await saleItem();
    const prompt = (await promptFor(item.itemId)) as PaymentRequired;
    const declared = prompt.extensions![PAYMENT_IDENTIFIER];
    expect(validatePaymentIdentifier(declared)).toEqual({ valid: true });
    expect(isPaymentIdentifierRequired(declared)).toBe(false);
  });

  it('same id signed afresh: the first order, charged once; the second authorization untouched', async () => {
    const item = await saleItem(0.5);
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const prompt = await promptFor(item.itemId);
    const first = await buyer.sign(prompt, id);
    const paid = await acquire(item.itemId, first.header);
    expect(paid.statusCode).toBe(200);
    const order = paid.json() as { order_id: string; download_url: string };

    // the answer was lost; the client signs again (a new nonce) with the same id
    const second = await buyer.sign(await promptFor(item.itemId), id);
    expect(second.nonce).not.toBe(first.nonce);
    const again = await acquire(item.itemId, second.header);
    expect(again.statusCode).toBe(200);
    const retried = again.json() as { order_id: string; download_url: string };
    expect(retried.order_id).toBe(order.order_id);
    // fresh links, as a replay of the same nonce gets them
    expect((await t.app.inject({ url: retried.download_url })).statusCode).toBe(200);
    // the receipt of the one settlement
    const receipt = (r: { headers: Record<string, unknown> }) =>
      decodePaymentResponseHeader(String(r.headers['payment-response']));
    expect(receipt(again)).toEqual(receipt(paid));

    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(START - 500_000);
    expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
      transfers: 1,
      orders: 1,
    });
    // never claimed, never settled: its nonce is still free on the token (the dev ledger)
    expect(await nonceTouched(t.runtime.deps.sql, buyer.address, second.nonce)).toBe(false);
    // the very first signature replayed (same nonce, same id) is the same order too
    const replay = await acquire(item.itemId, first.header);
    expect(replay.statusCode).toBe(200);
    expect((replay.json() as { order_id: string }).order_id).toBe(order.order_id);
  });

  it('same id for another item or amount: 409 payment_identifier_conflict, nothing moves', async () => {
    const a = await saleItem(0.5);
    const b = await saleItem(0.25);
    const buyer = idPayer(newWallet());
    const id = generatePaymentId('order_');
    const ok = await acquire(a.itemId, (await buyer.sign(await promptFor(a.itemId), id)).header);
    expect(ok.statusCode).toBe(200);
    const other = await buyer.sign(await promptFor(b.itemId), id);
    const res = await acquire(b.itemId, other.header);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'payment_identifier_conflict' });
    expect(await nonceTouched(t.runtime.deps.sql, buyer.address, other.nonce)).toBe(false);
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(START - 500_000);
    // the other item with a new id is an ordinary purchase
    const fresh = await buyer.sign(await promptFor(b.itemId), generatePaymentId());
    expect((await acquire(b.itemId, fresh.header)).statusCode).toBe(200);
    // another wallet may use the same id: ids are per payer
    const stranger = idPayer(newWallet());
    const theirs = await stranger.sign(await promptFor(a.itemId), id);
    const strangers = await acquire(a.itemId, theirs.header);
    expect(strangers.statusCode).toBe(200);
    // ...and gets an order of its own, never the first payer's (nor its links)
    const mine = ok.json() as { order_id: string; download_url: string };
    const their = strangers.json() as { order_id: string; download_url: string };
    expect(their.order_id).not.toBe(mine.order_id);
    expect(their.download_url).not.toContain(mine.order_id);
    expect(await local.balanceOf('eip155:8453', stranger.address)).toBe(START - 500_000);
  });

  it('a malformed id: 400 invalid_payment_identifier before the signature is even checked', async () => {
    const item = await saleItem();
    const buyer = idPayer(newWallet());
    const { payload } = await buyer.sign(await promptFor(item.itemId), generatePaymentId());
    for (const raw of ['short', 'x'.repeat(129), 'pay_with spaces_0123456789', 42]) {
      const res = await acquire(item.itemId, withRawId(payload, raw));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_payment_identifier' });
    }
    // with a forged signature as well: the id is refused first
    const forged = {
      ...payload,
      payload: { ...payload.payload, signature: `0x${'11'.repeat(65)}` },
    };
    const res = await acquire(item.itemId, withRawId(forged, 'bad id!'));
    expect(res.json()).toMatchObject({ error: 'invalid_payment_identifier' });
    expect(await moneyOf(t.runtime.deps.sql, buyer.address)).toEqual({ transfers: 0, orders: 0 });
    // an echo of the declaration without an id is no id at all: an ordinary purchase
    const plain = await buyer.sign(await promptFor(item.itemId));
    expect((await acquire(item.itemId, plain.header)).statusCode).toBe(200);
  });

  it('two requests with one id at once (different signatures): one charge, one order', async () => {
    const item = await saleItem(0.5);
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const prompt = await promptFor(item.itemId);
    const signed = await Promise.all([1, 2, 3].map(() => buyer.sign(prompt, id)));
    const answers = await Promise.all(signed.map((s) => acquire(item.itemId, s.header)));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((r) => (r.json() as { order_id: string }).order_id)).size).toBe(1);
    expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
      transfers: 1,
      orders: 1,
    });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(START - 500_000);
  });

  it('the stepwise path too (claim, settle, complete): concurrent retries wait for the first', async () => {
    const { payments } = t.runtime.deps;
    payments.testHooks.afterSettle = () => new Promise((r) => setTimeout(r, 50));
    try {
      const item = await saleItem(0.5);
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const prompt = await promptFor(item.itemId);
      const signed = await Promise.all([1, 2].map(() => buyer.sign(prompt, id)));
      const answers = await Promise.all(signed.map((s) => acquire(item.itemId, s.header)));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
      const [x, y] = answers.map((r) => (r.json() as { order_id: string }).order_id);
      expect(x).toBe(y);
      expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
        transfers: 1,
        orders: 1,
      });
    } finally {
      payments.testHooks.afterSettle = undefined;
    }
  });

  if (revision === 'A') {
    it('the keyed POST /api/v1/buy: same id answers the first order; the id is bound to the item', async () => {
      const item = await saleItem(0.5);
      const other = await saleItem(0.5);
      const registered = await registerAgent(t.app);
      const buyer = idPayer(registered.wallet);
      const headers = { 'x-api-key': registered.apiKey };
      const buy = (itemId: string, header?: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/buy',
          headers: { ...headers, ...(header && { 'payment-signature': header }) },
          payload: { item_id: itemId, chain: 'base', ...(header && LEGAL) },
        });
      const id = generatePaymentId();
      const prompt = (await buy(item.itemId)).headers;
      const required = promptOf({ headers: prompt });
      expect(validatePaymentIdentifier(required.extensions![PAYMENT_IDENTIFIER])).toEqual({
        valid: true,
      });
      const first = await buy(item.itemId, (await buyer.sign(required, id)).header);
      expect(first.statusCode).toBe(200);
      const second = await buy(item.itemId, (await buyer.sign(required, id)).header);
      expect(second.statusCode).toBe(200);
      expect(second.json().order_id).toBe(first.json().order_id);
      // same price, same seller terms, another item in the body: another request
      const otherPrompt = promptOf(await buy(other.itemId));
      const conflict = await buy(other.itemId, (await buyer.sign(otherPrompt, id)).header);
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json()).toMatchObject({ error: 'payment_identifier_conflict' });
      expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(START - 500_000);
    });
  } else {
    it('the listing fee: same id signed afresh lists once; the id of a purchase is not a listing', async () => {
      const seller = idPayer(newWallet());
      const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
      const post = (header?: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/items',
          payload: req.payload,
          headers: { ...req.headers, ...(header && { 'payment-signature': header }) },
        });
      const prompt = promptOf(await post());
      expect(validatePaymentIdentifier(prompt.extensions![PAYMENT_IDENTIFIER])).toEqual({
        valid: true,
      });
      const id = generatePaymentId('listing_');
      const first = await post((await seller.sign(prompt, id)).header);
      expect(first.statusCode).toBe(202);
      // the retry signs afresh from the prompt it kept (a new unpaid call would meet duplicate_code)
      const retry = await seller.sign(prompt, id);
      const second = await post(retry.header);
      expect(second.statusCode).toBe(202);
      expect(second.json().item_id).toBe(first.json().item_id);
      expect(await nonceTouched(t.runtime.deps.sql, seller.address, retry.nonce)).toBe(false);
      expect(await local.balanceOf('eip155:8453', seller.address)).toBe(START - 10_000);

      // a purchase's id sent with a listing fee (another route): 409 before any byte is stored
      const buyer = idPayer(newWallet());
      const item = await saleItem(0.5);
      const bought = await acquire(
        item.itemId,
        (await buyer.sign(await promptFor(item.itemId), id)).header,
      );
      expect(bought.statusCode).toBe(200);
      const blobs = await t.blobFiles();
      const other = uploadRequest({ bytes: zipOf(uniqueProject()) });
      const otherPrompt = promptOf(
        await t.app.inject({ method: 'POST', url: '/api/v1/items', ...other }),
      );
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/items',
        payload: other.payload,
        headers: {
          ...other.headers,
          'payment-signature': (await buyer.sign(otherPrompt, id)).header,
        },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: 'payment_identifier_conflict' });
      expect(await t.blobFiles()).toEqual(blobs);
    });
  }
});

describe('documented', () => {
  it('in the manifest, both guides and the OpenAPI error lists of every paid route', async () => {
    for (const revision of ['B', 'A']) {
      const t = await startTestApp({ CONTRACT_REVISION: revision });
      try {
        const skills = (await t.app.inject('/api/v1/skills')).json();
        expect(skills.payment.payment_identifier).toMatchObject({
          extension: PAYMENT_IDENTIFIER,
          required: false,
          retry: expect.stringMatching(/same id returns the original result/),
          kept_seconds_after_window: 86_400,
        });
        const guide = (await t.app.inject('/agent-usage')).body;
        expect(guide).toContain('extensions["payment-identifier"].info.id');
        expect(guide).toContain('payment_identifier_conflict');
        const doc = (await t.app.inject('/openapi.json')).json();
        const paid = [
          doc.paths['/api/v1/items/{uuid}/acquire'].post,
          revision === 'A' ? doc.paths['/api/v1/buy'].post : doc.paths['/api/v1/items'].post,
        ];
        for (const op of paid) {
          expect(JSON.stringify(op.responses['409'])).toContain('payment_identifier_conflict');
          expect(JSON.stringify(op.responses['400'])).toContain('invalid_payment_identifier');
        }
      } finally {
        await t.close();
      }
    }
  });
});

describe('ids are durable', () => {
  it('are kept past the window for the retention, then pruned by the reconciliation pass', async () => {
    const t = await startTestApp({ X402_PAYMENT_ID_RETENTION_SECONDS: '3600' });
    try {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      const buy = async () =>
        t.app.inject({
          method: 'POST',
          url,
          payload: LEGAL,
          headers: { 'payment-signature': (await buyer.sign(prompt, id)).header },
        });
      const order = (await buy()).json().order_id as string;
      const { sql } = t.runtime.deps;
      // the first authorization's window closed 30 minutes ago: the id still answers its order
      await sql`update x402_payment_identifiers set valid_before = now() - interval '30 minutes'
                where payer = ${buyer.address}`;
      expect((await reconcileNow(t.runtime.deps)).prunedPaymentIdentifiers).toBe(0);
      const late = await buy();
      expect(late.statusCode).toBe(200);
      expect(late.json().order_id).toBe(order);
      // past the retention it is forgotten (and the same id would start a new purchase)
      await sql`update x402_payment_identifiers set valid_before = now() - interval '2 hours'
                where payer = ${buyer.address}`;
      expect((await reconcileNow(t.runtime.deps)).prunedPaymentIdentifiers).toBe(1);
      const [left] = await sql<{ n: number }[]>`
        select count(*)::int as n from x402_payment_identifiers where payer = ${buyer.address}`;
      expect(left!.n).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('an id whose payment is still open is kept however old: a retry never starts a second charge', async () => {
    const t = await startTestApp({ X402_PAYMENT_ID_RETENTION_SECONDS: '3600' });
    try {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      const first = await t.app.inject({
        method: 'POST',
        url,
        payload: LEGAL,
        headers: { 'payment-signature': (await buyer.sign(prompt, id)).header },
      });
      expect(first.statusCode).toBe(200);
      const { sql } = t.runtime.deps;
      // the first payment unresolved (an RPC outage) long past its window and the retention
      await sql`update x402_payments set status = 'pending'
                where id = (select payment_id from x402_payment_identifiers where payer = ${buyer.address})`;
      await sql`update x402_payment_identifiers set valid_before = now() - interval '2 days'
                where payer = ${buyer.address}`;
      expect(await pruneIdentifiers(sql, 3600)).toBe(0);
      // answered as failed at settlement while its transfer may still be mined: open too
      await sql`update x402_payments set status = 'failed', error_code = 'payment_settlement_failed'
                where id = (select payment_id from x402_payment_identifiers where payer = ${buyer.address})`;
      expect(await pruneIdentifiers(sql, 3600)).toBe(0);
      // resolved, the same id goes once the retention has passed
      await sql`update x402_payments set status = 'completed'
                where id = (select payment_id from x402_payment_identifiers where payer = ${buyer.address})`;
      expect(await pruneIdentifiers(sql, 3600)).toBe(1);
    } finally {
      await t.close();
    }
  });

  /** Environment for another process on the same database (Postgres tier) or data directory. */
  async function sharedDatabase(): Promise<{ env: Record<string, string>; cleanup(): void }> {
    if (ON_POSTGRES) {
      const first = await startTestApp();
      const env = {
        DATABASE_URL: first.config.DATABASE_URL!,
        URL_SIGNING_SECRET: PG_TEST_SIGNING_SECRET,
        ADMIN_TOKEN: PG_TEST_ADMIN_TOKEN,
        ATTESTATION_PRIVATE_KEY: PG_TEST_ATTESTATION_KEY,
      };
      await first.close();
      return { env, cleanup: () => {} };
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'payment-id-'));
    return {
      env: { EMBEDDED_DB_IN_MEMORY: 'false', DATA_DIR: dir },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }

  it('across a restart: the same id signed afresh answers the order placed before it', async () => {
    const shared = await sharedDatabase();
    const env = { ...shared.env, LOCAL_FACILITATOR_START_BALANCE_USDC: '10' };
    let t: TestContext | undefined = await startTestApp(env);
    try {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const buy = async (app: TestContext) => {
        const prompt = promptOf(await app.app.inject({ method: 'POST', url }));
        const { header } = await buyer.sign(prompt, id);
        return app.app.inject({
          method: 'POST',
          url,
          payload: LEGAL,
          headers: { 'payment-signature': header },
        });
      };
      const before = await buy(t);
      expect(before.statusCode).toBe(200);
      await t.close();
      t = await startTestApp(env);
      const after = await buy(t);
      expect(after.statusCode).toBe(200);
      expect(after.json().order_id).toBe(before.json().order_id);
      const local = t.runtime.deps.facilitator as LocalFacilitator;
      expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(START - 500_000);
    } finally {
      await t?.close();
      shared.cleanup();
    }
  });

  // Two processes on one database: the Postgres tier (PGlite is one process's database).
  it.skipIf(!ON_POSTGRES)('across two instances on one database, at once', async () => {
    const shared = await sharedDatabase();
    const env = { ...shared.env, LOCAL_FACILITATOR_START_BALANCE_USDC: '10' };
    const a = await startTestApp(env);
    const b = await startTestApp(env);
    try {
      const item = await createSaleItem(a.runtime.deps, { priceUsdc: 0.5 });
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const prompt = promptOf(await a.app.inject({ method: 'POST', url }));
      const signed = await Promise.all([1, 2, 3, 4].map(() => buyer.sign(prompt, id)));
      const answers = await Promise.all(
        signed.map((s, i) =>
          (i % 2 ? b : a).app.inject({
            method: 'POST',
            url,
            payload: LEGAL,
            headers: { 'payment-signature': s.header },
          }),
        ),
      );
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      expect(new Set(answers.map((r) => r.json().order_id)).size).toBe(1);
      expect(await moneyOf(a.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
        transfers: 1,
        orders: 1,
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('two app instances over one embedded database answer one id with one order', async () => {
    const t = await startTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
    const { buildApp } = await import('../../src/http/app.js');
    const second = await buildApp(t.config, t.runtime.deps);
    await second.ready();
    try {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
      const buyer = idPayer(newWallet());
      const id = generatePaymentId();
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      const signed = await Promise.all([1, 2].map(() => buyer.sign(prompt, id)));
      const answers = await Promise.all(
        signed.map((s, i) =>
          (i ? second : t.app).inject({
            method: 'POST',
            url,
            payload: LEGAL,
            headers: { 'payment-signature': s.header },
          }),
        ),
      );
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
      expect(answers[0]!.json().order_id).toBe(answers[1]!.json().order_id);
      expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
        transfers: 1,
        orders: 1,
      });
    } finally {
      await second.close();
      await t.close();
    }
  });
});

/**
 * The review's fixes, each a race or a window: a remote facilitator on loopback (real wire
 * protocol) whose settlements are held and answered as the test says, so a first payment can be
 * caught while it settles and then released (503, nothing moved).
 */
describe('an id whose payment is settling, released or out of its window', () => {
  let rail: RemoteRail;
  let t: SellingContext;
  let fake: FakeFacilitator;
  let rpc: FakeRpc;
  beforeAll(async () => {
    // tests here move the clock past a window (up to X402_MAX_TIMEOUT_SECONDS + 180 s ahead): a
    // claim still settling across that jump must not look abandoned (stale after 30 s)
    rail = await startRemoteRail({ RECONCILE_STALE_SECONDS: '3600' });
    ({ t, fake, rpc } = rail);
  });
  afterAll(() => rail?.close());
  beforeEach(() => {
    fake.mode = 'ok';
    fake.hold = undefined;
  });

  /** A hold on the facilitator's next settlements, and a way to wait until one arrived. */
  function holdSettlements() {
    let open!: () => void;
    fake.hold = new Promise<void>((r) => (open = r));
    const before = fake.requests.filter((r) => r.path === '/settle').length;
    return {
      open,
      async arrived() {
        await expect
          .poll(() => fake.requests.filter((r) => r.path === '/settle').length, {
            timeout: 10_000,
          })
          .toBe(before + 1);
      },
    };
  }
  const settles = () => fake.requests.filter((r) => r.path === '/settle').length;
  /** A new 0.5 USDC listing, its prompt, a new buyer and one payment id. */
  const purchase = async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = (itemId: string) => `/api/v1/items/${itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: url(item.itemId) }));
    const acquire = (header: string, itemId = item.itemId) =>
      t.app.inject({
        method: 'POST',
        url: url(itemId),
        payload: LEGAL,
        headers: { 'payment-signature': header },
      });
    return { item, url, prompt, buyer: idPayer(newWallet()), id: generatePaymentId(), acquire };
  };
  const post = (req: ReturnType<typeof uploadRequest>, header?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: req.payload,
      headers: { ...req.headers, ...(header && { 'payment-signature': header }) },
    });

  it('an upload retried while its id is settling is checked (duplicates) as a new one: a released first payment does not list a copy', async () => {
    const seller = idPayer(newWallet());
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const prompt = promptOf(await post(req));
    const id = generatePaymentId('listing_');
    // the first fee is taken by the facilitator, which answers "busy" (nothing moved) only later
    fake.mode = 'settle_capacity';
    const held = holdSettlements();
    const first = post(req, (await seller.sign(prompt, id)).header);
    await held.arrived();
    // meanwhile another seller lists the same archive
    fake.mode = 'ok';
    fake.hold = undefined;
    const other = idPayer(newWallet());
    const theirs = await post(req, (await other.sign(prompt)).header);
    expect(theirs.statusCode).toBe(202);
    const settled = settles();
    // the first seller retries with the same id, signed afresh: while the id's payment may still
    // be released, this request is checked as a new one
    const retry = post(req, (await seller.sign(prompt, id)).header);
    // (it answers at once; without the check it would wait for the first payment's outcome)
    const early = await Promise.race([retry, sleep(10_000).then(() => undefined)]);
    held.open();
    expect((await first).json()).toMatchObject({ error: 'settlement_capacity' });
    expect(early?.statusCode).toBe(409);
    expect(early?.json()).toMatchObject({ error: 'duplicate_code' });
    expect((await retry).statusCode).toBe(409);
    // nothing settled for it, and one listing of the archive
    expect(settles()).toBe(settled);
    const [n] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from items i join agents a on a.id = i.seller_id
      where a.address = ${seller.address}`;
    expect(n!.n).toBe(0);
  });

  it('two requests racing on one id whose winner is released: 503 settlement_capacity, nothing charged', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const [a, b] = await Promise.all([buyer.sign(prompt, id), buyer.sign(prompt, id)]);
    const acquire = (header: string) =>
      t.app.inject({
        method: 'POST',
        url,
        payload: LEGAL,
        headers: { 'payment-signature': header },
      });
    // B found the id free and claims only once A holds it; B learns of its loss after A's
    // payment was released. The interleaving is set on the real store's claim, nothing replaced.
    const store = t.runtime.deps.payments.store;
    const claim = store.claim.bind(store);
    const gate = () => {
      let open!: () => void;
      return { done: new Promise<void>((r) => (open = r)), open: () => open() };
    };
    const reached = gate();
    const mayClaim = gate();
    const claimed = gate();
    const mayAnswer = gate();
    store.claim = async (input) => {
      if (input.payment.nonce !== b.nonce) return claim(input);
      reached.open();
      await mayClaim.done;
      try {
        return await claim(input);
      } finally {
        claimed.open();
        await mayAnswer.done;
      }
    };
    try {
      const before = settles();
      fake.mode = 'settle_capacity';
      const held = holdSettlements();
      const second = acquire(b.header);
      await reached.done;
      const first = acquire(a.header);
      await held.arrived();
      mayClaim.open();
      await claimed.done;
      held.open();
      const answered = await first;
      expect(answered.statusCode).toBe(503);
      mayAnswer.open();
      const res = await second;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        error: 'settlement_capacity',
        retry_after: expect.any(Number),
      });
      // one settlement asked for: A's, which moved nothing
      expect(settles()).toBe(before + 1);
      expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toEqual({
        transfers: 0,
        orders: 0,
      });
      expect(await nonceTouched(t.runtime.deps.sql, buyer.address, b.nonce)).toBe(false);
      // the id is free: the same id (and B's own signature) now buys, once
      fake.mode = 'ok';
      fake.hold = undefined;
      const again = await acquire(b.header);
      expect(again.statusCode).toBe(200);
    } finally {
      store.claim = claim;
    }
  });

  it('an id whose payment failed at settlement: the same request signed afresh with it runs anew, once', async () => {
    const { item, url, prompt, buyer, id, acquire } = await purchase();
    const other = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const before = settles();
    // the transfer fails on chain (say the balance was short): nothing charged
    fake.mode = 'settle_failed';
    const failed = await buyer.sign(prompt, id);
    const res = await acquire(failed.header);
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ error: 'payment_settlement_failed' });
    // that very authorization again: its failure (it is never settled twice)
    fake.mode = 'ok';
    expect((await acquire(failed.header)).json()).toMatchObject({
      error: 'payment_settlement_failed',
    });
    expect(settles()).toBe(before + 1);
    // the payer tops up and retries at once: the failed authorization's window is still open, and
    // a facilitator may answer failure after it broadcast the transfer, so the id keeps answering
    // the failure until the chain says that authorization can never move money
    // (the chain is read once for that request: one authorizationState of the failed payment)
    const key = `${buyer.address.toLowerCase()}:${failed.nonce.toLowerCase()}`;
    const asks = () => rpc.asked.filter((k) => k === key).length;
    const asked = asks();
    const early = await acquire((await buyer.sign(prompt, id)).header);
    expect(early.json()).toMatchObject({ error: 'payment_settlement_failed' });
    expect(settles()).toBe(before + 1);
    expect(asks()).toBe(asked + 1);
    // just past its window by our clock, unused on the token: the chain's clock may lag ours
    // (the token checks block.timestamp < validBefore), so it may still be mined: the id keeps
    // answering the failure for X402_CHAIN_CLOCK_GRACE_SECONDS more
    const grace = t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS;
    await at(validBeforeOf(failed.payload) + 60, async () => {
      const late = await acquire((await buyer.sign(prompt, id)).header);
      expect(late.json()).toMatchObject({ error: 'payment_settlement_failed' });
      expect(settles()).toBe(before + 1);
      expect(asks()).toBe(asked + 2);
    });
    // past its window and that grace, and unused on the token (only the clock moves)
    await at(validBeforeOf(failed.payload) + grace + 60, async () => {
      // the same request with the same id, signed afresh, twice at once: run anew, once
      const retries = await Promise.all([buyer.sign(prompt, id), buyer.sign(prompt, id)]);
      const answers = await Promise.all(retries.map((r) => acquire(r.header)));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
      expect(answers[0]!.json().order_id).toBe(answers[1]!.json().order_id);
      expect(settles()).toBe(before + 2);
      expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toMatchObject({
        orders: 1,
      });
      // the id now answers the new order, whichever of the payer's signatures carries it
      const replay = await acquire(failed.header);
      expect(replay.json().order_id).toBe(answers[0]!.json().order_id);
      const again = await acquire((await buyer.sign(prompt, id)).header);
      expect(again.json().order_id).toBe(answers[0]!.json().order_id);
      const otherPrompt = promptOf(await t.app.inject({ method: 'POST', url: url(other.itemId) }));
      const conflict = await acquire((await buyer.sign(otherPrompt, id)).header, other.itemId);
      expect(conflict.json()).toMatchObject({ error: 'payment_identifier_conflict' });
      expect(settles()).toBe(before + 2);
    });
  });

  it('a settlement answered as failed whose transfer was mined after all: the id is never run anew, it answers the order', async () => {
    const { item, prompt, buyer, id, acquire } = await purchase();
    const before = settles();
    // the facilitator sent the transfer, then gave up waiting for its receipt and answered failure
    fake.mode = 'settle_failed';
    const failed = await buyer.sign(prompt, id);
    expect((await acquire(failed.header)).json()).toMatchObject({
      error: 'payment_settlement_failed',
    });
    fake.mode = 'ok';
    rpc.mine(buyer.address, failed.nonce, `0x${'ab'.repeat(32)}`);
    await at(validBeforeOf(failed.payload) + 60, async () => {
      // the payer's retry with the same id: the money moved once, so nothing is settled again,
      // and the payment it moved is completed and answered: the buyer was charged, so gets the order
      // (the chain read once for it: one authorizationState of the failed payment)
      const key = `${buyer.address.toLowerCase()}:${failed.nonce.toLowerCase()}`;
      const asked = rpc.asked.filter((k) => k === key).length;
      const retry = await acquire((await buyer.sign(prompt, id)).header);
      expect(retry.statusCode).toBe(200);
      expect(rpc.asked.filter((k) => k === key).length).toBe(asked + 1);
      expect(settles()).toBe(before + 1);
      expect(await moneyOf(t.runtime.deps.sql, buyer.address, item.itemId)).toMatchObject({
        orders: 1,
      });
      const again = await acquire((await buyer.sign(prompt, id)).header);
      expect(again.json().order_id).toBe(retry.json().order_id);
      expect(settles()).toBe(before + 1);
    });
  });

  it('an expired authorization with a swapped-in id proves nothing anew: no fresh links', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = idPayer(newWallet());
    const id = generatePaymentId();
    const acquire = (header: string) =>
      t.app.inject({
        method: 'POST',
        url,
        payload: LEGAL,
        headers: { 'payment-signature': header },
      });
    // two purchases of the item: one without an id, one with
    const plain = await buyer.sign(prompt);
    expect((await acquire(plain.header)).statusCode).toBe(200);
    const withId = await buyer.sign(prompt, id);
    expect((await acquire(withId.header)).statusCode).toBe(200);
    const windowOf = (p: typeof plain) =>
      Number(
        (p.payload.payload as { authorization: { validBefore: string } }).authorization.validBefore,
      );
    try {
      // a day after both windows closed (only the clock moves)
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime((Math.max(windowOf(plain), windowOf(withId)) + 86_400) * 1000);
      // the first header, captured, with the id swapped in (extensions are not signed)
      const swapped = await acquire(withRawId(plain.payload, id));
      expect(swapped.statusCode).toBe(402);
      expect(swapped.json()).toMatchObject({ error: 'payment_verification_failed' });
      expect(swapped.body).not.toMatch(/download|sig=/);
    } finally {
      vi.useRealTimers();
    }
    // within its window a fresh authorization with the id does get the links
    const fresh = await acquire((await buyer.sign(prompt, id)).header);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({ download_url: expect.any(String) });
  });
});
