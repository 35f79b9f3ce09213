import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/** Malformed or stalled HTTP: catalog-shaped answers, and slow clients cut off by the server. */

interface RawExchange {
  /** Everything the server wrote before it closed. */
  text: string;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/** Writes `head` on a raw socket, then stalls until the server closes (or `giveUpMs`). */
function rawExchange(base: string, head: string, giveUpMs = 8_000): Promise<RawExchange> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket: Socket = connect(Number(port), hostname, () => socket.write(head));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`server kept the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        text: Buffer.concat(chunks).toString('utf8'),
        closedAfterMs: Date.now() - started,
      });
    });
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;

describe('slow and malformed HTTP', () => {
  let t: ListeningTestContext;
  beforeAll(async () => {
    t = await startListeningTestApp({
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '1500',
    });
  });
  afterAll(() => t.close());

  it('closes an upload whose body stalls, answering 408 request_timeout', async () => {
    const head =
      'POST /api/v1/items HTTP/1.1\r\nHost: localhost\r\n' +
      'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n' +
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK\x03\x04';
    const res = await rawExchange(t.base, head);
    expect(res.closedAfterMs).toBeLessThan(5_000);
    expect(res.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(res.text)).toMatchObject({ error: 'request_timeout' });
  });

  it('closes a connection whose headers never finish', async () => {
    const res = await rawExchange(t.base, 'GET /api/v1/search?q=x HTTP/1.1\r\nHost: localhost\r\n');
    expect(res.closedAfterMs).toBeLessThan(5_000);
    expect(res.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(res.text)).toMatchObject({ error: 'request_timeout' });
  });

  it('a bad request line gets the catalog shape', async () => {
    const res = await rawExchange(t.base, 'NOT HTTP AT ALL\r\n\r\n');
    expect(res.text).toMatch(/^HTTP\/1\.1 400 /);
    const body = bodyOf(res.text) as { error: string; message: string };
    expect(body.error).toBe('invalid_request');
    expect(body.message).toMatch(/HTTP/);
  });

  it('a bad header gets the catalog shape', async () => {
    const res = await rawExchange(
      t.base,
      'GET / HTTP/1.1\r\nHost: localhost\r\nBad Header Name: x\r\n\r\n',
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(res.text)).toMatchObject({ error: 'invalid_request' });
  });

  it('headers over the limit get 431 headers_too_large in the catalog shape', async () => {
    const res = await rawExchange(
      t.base,
      `GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(res.text)).toMatchObject({ error: 'headers_too_large' });
  });

  it('a path that is not valid percent-encoding gets the catalog shape', async () => {
    const res = await t.app.inject({ url: '/api/v1/items/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    const body = res.json() as Record<string, unknown>;
    expect(body.error).toBe('invalid_request');
    expect(typeof body.message).toBe('string');
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  });

  it('invalid JSON and an unknown content type keep the catalog shape', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const bad = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{"policy_accepted": tru',
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json() as object).sort()).toEqual(['error', 'message']);
    expect(bad.json()).toMatchObject({ error: 'invalid_json' });
    const odd = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'x',
    });
    expect(odd.statusCode).toBe(415);
    expect(Object.keys(odd.json() as object).sort()).toEqual(['error', 'message']);
    expect(odd.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('a __proto__ key in valid JSON is data: not invalid_json, and no prototype changes', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const url = `/api/v1/items/${item.itemId}/acquire`;
    for (const payload of [
      '{"policy_accepted": true, "__proto__": {"polluted": "yes"}}',
      '{"policy_accepted": true, "constructor": {"prototype": {"polluted": "yes"}}}',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).not.toBe(500);
      expect((res.json() as { error?: string }).error).not.toBe('invalid_json');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});
