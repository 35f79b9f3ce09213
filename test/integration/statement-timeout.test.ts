import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { captureLogs } from '../helpers/logs.js';
import { answerWithin, databaseEnv, holdInSession, ON_POSTGRES } from '../helpers/postgres.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A statement stuck behind a lock on a Postgres server (an operator's open transaction in psql, a
 * migration's ALTER, a long reindex) is cancelled past DATABASE_STATEMENT_TIMEOUT_SECONDS and its
 * request answers 503 `database_unavailable`, instead of holding a pool connection for ever and,
 * the pool taken, leaving every request of the replica unanswered (src/db/timeouts.ts). A
 * transaction left idle past DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS loses its session and
 * its locks. Postgres tier only: the embedded database is one session in the process, which
 * nothing else can lock, and it sets neither bound.
 */
describe.runIf(ON_POSTGRES)('statements bounded by their timeouts', () => {
  let t: TestContext;
  let other: postgres.Sql;
  const { logger, lines } = captureLogs();
  const POOL = 3;

  beforeAll(async () => {
    const env = await databaseEnv();
    t = await startTestApp(
      {
        ...env,
        DATABASE_POOL_MAX: String(POOL),
        DATABASE_STATEMENT_TIMEOUT_SECONDS: '1',
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: '1',
        LOCAL_FACILITATOR_START_BALANCE_USDC: '10',
      },
      { logger },
    );
    // the operator's psql session: a connection of its own, with no timeout
    other = postgres(env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await other?.end();
    await t?.close();
  });

  it('a request behind a table lock answers 503 within about the timeout, more requests than the pool too; served again once released', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const urls = [`/api/v1/items/${item.itemId}`, '/api/v1/search?q=artifact'];
    for (const url of urls) expect((await t.app.inject(url)).statusCode, url).toBe(200);
    const before = lines.length;

    // what a migration's ALTER TABLE holds while it runs (or an operator's `lock table`)
    const release = await holdInSession(
      other,
      (tx) => tx`lock table items in access exclusive mode`,
    );
    let during: Array<Awaited<ReturnType<typeof answerWithin<LightMyRequestResponse>>>>;
    try {
      // twice the pool: the second half waits for a connection, then for the lock
      during = await Promise.all(
        Array.from({ length: 2 * POOL }, (_, i) =>
          answerWithin(() => t.app.inject(urls[i % 2]!), 8_000),
        ),
      );
    } finally {
      await release();
    }
    for (const { res, status, ms } of during) {
      expect(status).toBe(503);
      expect(res!.headers['retry-after']).toBe('5');
      expect(res!.json()).toEqual({
        error: 'database_unavailable',
        message: expect.stringMatching(/time limit/),
        retry_after: 5,
      });
      // one timeout for the first pool's worth, two for the requests that queued behind them
      expect(ms).toBeLessThan(3_500);
    }
    // one warn line per request naming the timeout, no stack, no 500
    const cancelled = lines
      .slice(before)
      .filter(
        (l) => l.msg === 'request failed: a database statement was cancelled by statement_timeout',
      );
    expect(cancelled).toHaveLength(2 * POOL);
    expect(cancelled[0]).toMatchObject({
      level: 40,
      timeout: 'statement_timeout',
      reason: expect.stringMatching(/^57014: canceling statement due to statement timeout/),
    });
    expect(cancelled[0]).not.toHaveProperty('err');
    expect(lines.slice(before).filter((l) => l.level >= 50)).toEqual([]);

    // the pool is whole again: the same requests, as many at once as during the lock
    const after = await Promise.all(
      Array.from({ length: 2 * POOL }, (_, i) =>
        answerWithin(() => t.app.inject(urls[i % 2]!), 8_000),
      ),
    );
    for (const { status, ms } of after) {
      expect(status).toBe(200);
      expect(ms).toBeLessThan(2_000);
    }
  }, 60_000);

  it('a paid purchase behind a lock on orders: 503, no order, the authorization unspent; the same signed payment completes once released', async () => {
    const local = t.runtime.deps.facilitator as LocalFacilitator;
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const buyer = newWallet();
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const { header, nonce } = await signPayment(buyer, required, required.accepts[0]!);
    const purchase = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const sql = t.runtime.deps.sql;
    const orders = async () =>
      (
        await sql<
          { n: number }[]
        >`select count(*)::int as n from orders where item_id = ${item.itemId}`
      )[0]!.n;
    const payments = async () =>
      (
        await sql<{ status: string }[]>`
          select status from x402_payments where payer = ${buyer.address.toLowerCase()}`
      ).map((r) => r.status);

    // the retention purge's lock (src/domain/listings/purge.ts) held by a transaction left open in
    // psql: a purchase reads the item without locking its row (migration 478), and waits here to
    // write its order, after its nonce and its transfer in the same statement
    const release = await holdInSession(other, (tx) => tx`lock table orders in share mode`);
    let under: Awaited<ReturnType<typeof answerWithin<LightMyRequestResponse>>>;
    try {
      under = await answerWithin(purchase, 8_000);
    } finally {
      await release();
    }
    expect(under.status).toBe(503);
    expect(under.res!.json()).toMatchObject({ error: 'database_unavailable', retry_after: 5 });
    expect(under.res!.headers['retry-after']).toBe('5');
    // one statement timed out, not one per path the payment could take (the stepwise path would
    // have settled, then waited again to write the order)
    expect(under.ms).toBeLessThan(2_500);
    // rolled back whole: no order, no payment recorded, no money moved, the nonce free
    expect(await orders()).toBe(0);
    expect(await payments()).toEqual([]);
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(10_000_000);
    expect(
      await sql`select 1 from x402_nonces where lower(nonce) = ${nonce.toLowerCase()}`,
    ).toHaveLength(0);

    const retried = await answerWithin(purchase, 8_000);
    expect(retried.status, retried.res?.body).toBe(200);
    expect(retried.res!.json()).toMatchObject({ order_id: expect.any(String) });
    expect(await orders()).toBe(1);
    expect(await payments()).toEqual(['completed']);
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(9_500_000);
  }, 30_000);

  it('a transaction left idle past its bound loses its session and its locks; the pool serves on', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const sql = t.runtime.deps.sql;
    // a bug: a transaction that takes a row and then waits on something that never comes
    const forgotten = sql
      .begin(async (tx) => {
        await tx`select 1 from items where id = ${item.itemId} for update`;
        await sleep(4_000);
        await tx`select 1`;
      })
      .then(
        () => 'committed',
        (err: { code?: string }) => err.code ?? 'failed',
      );
    await sleep(200);
    // another session can take the row within about the bound, not after the 4 s
    const started = Date.now();
    await other.begin(async (tx) => {
      await tx`set local lock_timeout = '3s'`;
      await tx`select 1 from items where id = ${item.itemId} for update`;
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    // the forgotten transaction's next statement finds its session ended: nothing it wrote stays
    expect(await forgotten).toMatch(/^(25P03|CONNECTION_CLOSED|CONNECTION_ENDED)$/);
    expect((await t.app.inject(`/api/v1/items/${item.itemId}`)).statusCode).toBe(200);

    // the LISTEN connection (cross-replica cache invalidation) has the same parameters and sits
    // idle outside a transaction, which neither bound counts: idle past both, it still hears
    const heard: string[] = [];
    await sql.listen('statement_timeout_test', (payload) => heard.push(payload));
    await sleep(1_500);
    await other.notify('statement_timeout_test', 'still listening');
    for (let i = 0; i < 50 && heard.length === 0; i++) await sleep(20);
    expect(heard).toEqual(['still listening']);
  }, 30_000);
});
