import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';

/**
 * `/mcp` takes upload-sized bodies (list_item's archive in base64), each buffered whole: one
 * client address may have only MCP_LARGE_BODIES_PER_ADDRESS bodies over MCP_LARGE_BODY_BYTES in
 * flight; more are 429 `too_many_large_requests` before their body is read. Real sockets: a large
 * body is kept in flight by sending only its first bytes.
 */
const LARGE = 4096;
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp({
    MCP_LARGE_BODY_BYTES: String(LARGE),
    MCP_LARGE_BODIES_PER_ADDRESS: '2',
  });
});
afterAll(() => t?.close());

/** A JSON-RPC ping of about `bytes` bytes (the padding rides in `_meta`). */
const ping = (bytes: number) => {
  const bare = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } };
  bare.params._meta.pad = 'x'.repeat(Math.max(0, bytes - JSON.stringify(bare).length));
  return Buffer.from(JSON.stringify(bare));
};

/** POST /mcp from `address` (X-Forwarded-For, TRUST_PROXY's default): its request and answer. */
function post(address: string, body: Buffer, send = body.length) {
  const req: ClientRequest = request(`${t.base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(body.length),
      'x-forwarded-for': address,
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, send));
  if (send === body.length) req.end();
  return { req, answer };
}

describe('/mcp large bodies per address', () => {
  it('two large bodies in flight from one address: the third is 429 at once, small calls and other addresses pass', async () => {
    const big = ping(LARGE * 4);
    // two large calls whose bodies are still arriving
    const held = [post('10.9.0.1', big, 100), post('10.9.0.1', big, 100)];
    held.forEach((h) => h.answer.catch(() => undefined));
    // (a whole body: while the held two are still on their way, this one is simply answered)
    await expect
      .poll(async () => (await post('10.9.0.1', big).answer).status, { timeout: 15_000 })
      .toBe(429);
    // none of its body is ever sent: answered all the same, it was refused before the body was read
    const probe = post('10.9.0.1', big, 0);
    const refused = await probe.answer;
    probe.req.destroy();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: 'too_many_large_requests',
      retry_after: 1,
      message: expect.stringMatching(/At most 2 calls over 4096 bytes/),
    });
    // a small call from the same address, and a large one from another, are answered
    expect((await post('10.9.0.1', ping(200)).answer).status).toBe(200);
    expect((await post('10.9.0.2', big).answer).status).toBe(200);
    // once the held calls end (here: the client gives up), the address may send large bodies again
    held.forEach((h) => h.req.destroy());
    await expect
      .poll(async () => (await post('10.9.0.1', big).answer).status, { timeout: 15_000 })
      .toBe(200);
  });
});
