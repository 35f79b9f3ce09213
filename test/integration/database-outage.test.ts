import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';

/**
 * A Postgres restart or failover as the HTTP API answers it (docs/operating.md, "After a crash"):
 * the app reaches its database through a relay the test cuts, so that only this app sees the
 * outage. Postgres tier only: the embedded database is in the process and cannot go away alone.
 */
describe.runIf(ON_POSTGRES)('the database out of reach', () => {
  let t: TestContext;
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  const { logger, lines } = captureLogs();

  beforeAll(async () => {
    const env = await databaseEnv();
    const url = new URL(env.DATABASE_URL!);
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    t = await startTestApp(
      { ...env, DATABASE_URL: url.toString(), DATABASE_CONNECT_TIMEOUT_SECONDS: '2' },
      { logger },
    );
  });
  afterAll(async () => {
    await t?.close();
    await relay?.close();
  });

  it('answers 503 database_unavailable with retry_after, then serves again without a restart', async () => {
    const search = () => t.app.inject('/api/v1/search?q=widget');
    expect((await search()).statusCode).toBe(200);

    await relay.cut();
    try {
      for (const url of [
        '/api/v1/search?q=widget',
        '/api/v1/items/7d1c0e0e-1111-4111-8111-111111111111',
      ]) {
        const res = await t.app.inject(url);
        expect(res.statusCode, url).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json()).toEqual({
          error: 'database_unavailable',
          message: expect.any(String),
          retry_after: 5,
        });
      }
      // the operator reads one warn line with the reason, not an error with a stack
      const failed = lines.filter((l) => l.msg === 'request failed: the database is out of reach');
      expect(failed.length).toBeGreaterThanOrEqual(2);
      expect(failed[0]).toMatchObject({
        level: 40,
        reason: expect.stringMatching(/ECONN|CONNECTION/),
      });
      expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    } finally {
      await relay.restore();
    }
    // postgres.js reconnects on the next query
    expect((await search()).statusCode).toBe(200);
  });

  it('answers each request at once while Postgres refuses connections, and serves within a second or two of its return', async () => {
    const search = () => t.app.inject('/api/v1/search?q=widget');
    expect((await search()).statusCode).toBe(200);
    const timed = async () => {
      const started = Date.now();
      const res = await Promise.race([
        search(),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 8_000)),
      ]);
      return { status: res?.statusCode ?? 'no answer within 8 s', ms: Date.now() - started };
    };
    const during: Array<Awaited<ReturnType<typeof timed>>> = [];
    await relay.cut();
    try {
      // rounds of concurrent requests, as a busy replica meets a restart: each failed connection
      // counts toward postgres.js's reconnect delay (its default grows to 20 s)
      for (let round = 0; round < 3; round++)
        during.push(...(await Promise.all(Array.from({ length: 10 }, timed))));
    } finally {
      await relay.restore();
    }
    const after = await timed();
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(2_500);
    }
    expect(after.status).toBe(200);
    expect(after.ms).toBeLessThan(2_500);
  }, 60_000);

  it('answers 503 within its connect timeout when the path to Postgres hangs, not 30 s later', async () => {
    const search = () => t.app.inject('/api/v1/search?q=widget');
    expect((await search()).statusCode).toBe(200);
    const before = lines.length;

    relay.hold();
    try {
      // the pool's open connections end with the hold: a query on one fails at once
      expect((await search()).statusCode).toBe(503);
      const started = Date.now();
      const res = await search();
      const waited = Date.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'database_unavailable', retry_after: 5 });
      // DATABASE_CONNECT_TIMEOUT_SECONDS is 2 here; postgres.js alone would wait 30 s
      expect(waited).toBeGreaterThanOrEqual(1_500);
      expect(waited).toBeLessThan(10_000);
      const failed = lines
        .slice(before)
        .filter((l) => l.msg === 'request failed: the database is out of reach');
      expect(failed.at(-1)).toMatchObject({
        level: 40,
        reason: expect.stringMatching(/CONNECT_TIMEOUT/),
      });
    } finally {
      await relay.restore();
    }
    expect((await search()).statusCode).toBe(200);
  }, 40_000);
});
