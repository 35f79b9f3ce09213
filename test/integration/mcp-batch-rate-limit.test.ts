import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * A JSON-RPC batch on the hosted `/mcp` counts each of its messages against the caller's
 * address (docs/abuse-and-web-safety.md): a batch of 100 `tools/list` answered 3.6 MB and was
 * counted as one request.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PUBLIC_MAX: '10' });
});
afterAll(() => t?.close());

const batch = (n: number, from: string) =>
  t.app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: from,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify(
      Array.from({ length: n }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/list',
        params: {},
      })),
    ),
  });

it('each message of a batch counts toward the address limit: 429 rate_limited with Retry-After past it', async () => {
  const first = await batch(8, '198.51.100.7');
  expect(first.statusCode).toBe(200);
  expect(first.json()).toHaveLength(8);
  // 8 counted: a second batch of 8 passes the limit of 10
  const second = await batch(8, '198.51.100.7');
  expect(second.statusCode).toBe(429);
  expect(second.headers['retry-after']).toBeDefined();
  expect(second.json()).toMatchObject({ error: 'rate_limited', retry_after: expect.any(Number) });
  // another address is counted apart; a single message counts one
  expect((await batch(1, '198.51.100.8')).statusCode).toBe(200);
});
