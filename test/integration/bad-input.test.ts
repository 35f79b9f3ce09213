import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import {
  METADATA,
  startSellingApp,
  uploadRequest,
  type SellingContext,
} from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Hostile or sloppy input through the real app: every case is a stable 4xx code, and nothing is
 * logged at error level (an error log is what pages an operator; bad input must never do that).
 */
let t: SellingContext;
let logs: CapturedLogs;
let base: string;
beforeAll(async () => {
  logs = captureLogs();
  t = await startSellingApp({}, { logger: logs.logger });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => t?.close());
beforeEach(() => {
  logs.lines.length = 0;
});

function expectNoErrorLog() {
  expect(logs.errors().map((l) => l.msg)).toEqual([]);
}

const post = (payload: string | Buffer, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/items', payload, headers });

describe('search: a NUL byte or a non-decimal price is a 400, never a 500', () => {
  const cases: Array<[string, string, string]> = [
    ['NUL in q', 'q=redis%00limiter', 'invalid_query'],
    ['a control character in q', 'q=redis%1Blimiter', 'invalid_query'],
    ['q given twice', 'q=redis&q=limiter', 'invalid_query'],
    ['no q', 'tech_stack=go', 'missing_query'],
    ['blank q', 'q=%20%20', 'missing_query'],
    ['max_price above the ceiling', 'q=redis&max_price=1000000.5', 'invalid_price'],
    ['NUL in tech_stack', 'q=redis&tech_stack=go%00', 'invalid_tech_stack'],
    ['empty min_price', 'q=redis&min_price=', 'invalid_price'],
    ['hex min_price', 'q=redis&min_price=0x10', 'invalid_price'],
    ['binary max_price', 'q=redis&max_price=0b11', 'invalid_price'],
    ['padded max_price', 'q=redis&max_price=%205%20', 'invalid_price'],
    ['exponent min_price', 'q=redis&min_price=1e2', 'invalid_price'],
    ['signed min_price', 'q=redis&min_price=%2B5', 'invalid_price'],
    ['empty max_price hiding a range', 'q=redis&min_price=5&max_price=', 'invalid_price'],
  ];
  it.each(cases)('%s → 400 %s', async (_name, query, code) => {
    const res = await t.app.inject({ url: `/api/v1/search?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: code, message: expect.any(String) });
    expectNoErrorLog();
  });

  it('the messages say what to send: q once, prices within their range', async () => {
    const twice = await t.app.inject({ url: '/api/v1/search?q=redis&q=limiter' });
    expect(twice.json().message).toMatch(/q once/);
    const high = await t.app.inject({ url: '/api/v1/search?q=redis&max_price=99999999' });
    expect(high.json().message).toMatch(/1000000/);
  });

  it('plain decimals still filter: 0, 2, 2.5, 0.000001', async () => {
    for (const query of [
      'min_price=0',
      'max_price=2',
      'min_price=0.5&max_price=2.5',
      'min_price=0.000001',
    ]) {
      const res = await t.app.inject({ url: `/api/v1/search?q=redis&${query}` });
      expect(res.statusCode, query).toBe(200);
    }
    expectNoErrorLog();
  });
});

describe('seller items: limit and offset are plain integers', () => {
  const cases: Array<[string, string]> = [
    ['limit=0x10', 'invalid_limit'],
    ['limit=', 'invalid_limit'],
    ['limit=%205', 'invalid_limit'],
    ['limit=1e1', 'invalid_limit'],
    ['offset=0b1', 'invalid_offset'],
    ['offset=', 'invalid_offset'],
    ['offset=99999999999999999999', 'invalid_offset'],
  ];
  it.each(cases)('%s → 400 %s before any identity prompt', async (query, code) => {
    const res = await t.app.inject(`/api/v1/seller/items?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: code });
    expectNoErrorLog();
  });
});

describe('upload: a NUL byte in listing metadata is refused before any fee', () => {
  const fields = ['title', 'description', 'prompt_summary', 'tech_stack'] as const;
  it.each(fields)('NUL in %s → 400 invalid_metadata (multipart and JSON)', async (field) => {
    for (const encoding of ['multipart', 'json'] as const) {
      const req = uploadRequest({
        bytes: zipOf(uniqueProject()),
        metadata: { ...METADATA, [field]: 'Todo\u0000API' },
        encoding,
      });
      const res = await post(req.payload, req.headers);
      expect(res.statusCode, encoding).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_metadata' });
      expect(res.json().message).toContain(field);
      expect(res.headers['payment-required']).toBeUndefined();
    }
    expectNoErrorLog();
  });

  it('a signed fee sent with NUL metadata is refused before anything settles', async () => {
    const wallet = newWallet();
    const valid = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const prompt = promptOf(await post(valid.payload, valid.headers));
    const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
    const bad = uploadRequest({
      bytes: zipOf(uniqueProject()),
      metadata: { ...METADATA, title: 'Todo\u0000API' },
    });
    const res = await post(bad.payload, { ...bad.headers, 'payment-signature': header });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_metadata' });
    const rows = await t.runtime.deps.sql`
      select 1 from x402_payments where lower(payer) = ${wallet.address.toLowerCase()}`;
    expect(rows).toHaveLength(0);
    expect(await t.blobFiles()).toEqual([]);
    expectNoErrorLog();
  });

  it('a listing price written as a string is refused with invalid_price', async () => {
    for (const usdc of ['', '0x10', '0b11', ' 5 ', '5']) {
      const req = uploadRequest({
        bytes: zipOf(uniqueProject()),
        metadata: { ...METADATA, prices: { USDC: usdc } },
      });
      const res = await post(req.payload, req.headers);
      expect(res.statusCode, JSON.stringify(usdc)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_price' });
    }
    expectNoErrorLog();
  });
});

describe('upload: malformed multipart bodies', () => {
  const boundary = 'b0undary';
  const form = (parts: string[]) =>
    [...parts.map((p) => `--${boundary}\r\n${p}`), `--${boundary}--`, ''].join('\r\n');
  const field = (name: string, value: string) =>
    `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
  const filePart = (name: string, bytes: string) =>
    `Content-Disposition: form-data; name="${name}"; filename="p.zip"\r\nContent-Type: application/octet-stream\r\n\r\n${bytes}`;

  it('no boundary in the content type → 400 invalid_multipart', async () => {
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const res = await post(req.payload, { 'content-type': 'multipart/form-data' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_multipart', message: expect.any(String) });
    expectNoErrorLog();
  });

  it('a body cut off inside the file part → 400 invalid_multipart', async () => {
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const cut = (req.payload as Buffer).subarray(0, (req.payload as Buffer).length - 40);
    const res = await post(cut, req.headers);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_multipart' });
    expectNoErrorLog();
  });

  it('a body cut off inside the metadata part → 400 invalid_multipart', async () => {
    const res = await post(`--${boundary}\r\n${field('metadata', '{"title":')}`, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_multipart' });
    expectNoErrorLog();
  });

  it('over a real socket: a chunked body that ends mid-part → 400 invalid_multipart', async () => {
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const payload = req.payload as Buffer;
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const r = httpRequest(
          `${base}/api/v1/items`,
          { method: 'POST', headers: { ...req.headers, 'transfer-encoding': 'chunked' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        r.on('error', reject);
        r.write(payload.subarray(0, 200));
        r.write(payload.subarray(200, payload.length / 2));
        r.end();
      },
    );
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ error: 'invalid_multipart' });
    expectNoErrorLog();
  });

  it('over a real socket: a file part declared at 1 GB is answered 413 once past the limit, while the client still sends', async () => {
    const limit = t.runtime.deps.config.MAX_ARCHIVE_BYTES;
    const { port } = t.app.server.address() as { port: number };
    const accepted: Socket[] = [];
    const mine = (s: Socket) => accepted.push(s);
    t.app.server.on('connection', mine);
    // the answer used to wait for the whole declared body
    const cap = limit + 32 * 1024 * 1024;
    const { sock, answer, sent } = await sendUntilAnswered(
      port,
      boundary,
      `--${boundary}\r\n${field('metadata', JSON.stringify(METADATA))}\r\n` +
        `--${boundary}\r\n${filePart('file', 'PK\x03\x04')}`,
      0x41,
      cap,
    );
    t.app.server.off('connection', mine);
    const serverSide = accepted.find((s) => s.remotePort === sock.localPort);
    sock.destroy();
    expect(serverSide).toBeDefined();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(cap);
    // the client gone, the server's end of its connection goes too (it used to stay, unread,
    // until the timeouts)
    await vi.waitFor(() => expect(serverSide?.destroyed).toBe(true), {
      timeout: 3000,
      interval: 50,
    });
    expectNoErrorLog();
  });

  it('over a real socket: a multipart body declared at 1 GB whose bytes never form a part is answered 413 at once', async () => {
    const { port } = t.app.server.address() as { port: number };
    // no boundary ever comes: the parser would read this preamble for as long as it was sent
    const cap = 64 * 1024 * 1024;
    const { sock, answer, sent } = await sendUntilAnswered(port, boundary, '', 0, cap);
    sock.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('payload_too_large');
    expect(sent).toBeLessThan(cap);
    expectNoErrorLog();
  });

  it('over a real socket: a chunked multipart body (no declared length) whose bytes never form a part is answered 413 past the limit, then cut off', async () => {
    const limit = t.runtime.deps.config.MAX_ARCHIVE_BYTES;
    const { port } = t.app.server.address() as { port: number };
    // the parser read such a preamble for as long as it was sent (only the timeouts ended it)
    const cap = limit + 64 * 1024 * 1024;
    const { sock, answer, sent } = await sendUntilAnswered(port, boundary, '', 0, cap, {
      chunked: true,
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('payload_too_large');
    expect(sent).toBeLessThan(cap);
    // a client that goes on sending after the answer is cut off (16 MiB more are dropped)
    const more = await sendUntilClosed(sock, 256 * 1024 * 1024);
    expect(sock.destroyed).toBe(true);
    expect(more).toBeLessThan(64 * 1024 * 1024);
    expectNoErrorLog();
  });

  it('too many fields → 413 too_many_parts', async () => {
    const parts = Array.from({ length: 12 }, (_, i) => field(`f${i}`, 'x'));
    const res = await post(form(parts), {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'too_many_parts', message: expect.any(String) });
    expectNoErrorLog();
  });

  it('a compression field naming no format → 400 unsupported_archive before any fee, as in JSON', async () => {
    for (const compression of ['rar', 'ZIP', '']) {
      // a valid zip in a "file" part: only the compression field is wrong
      const [head, tail] = form([
        field('metadata', JSON.stringify(METADATA)),
        field('compression', compression),
        filePart('file', '\0'),
      ]).split('\0');
      const res = await post(
        Buffer.concat([Buffer.from(head!), zipOf(uniqueProject()), Buffer.from(tail!)]),
        { 'content-type': `multipart/form-data; boundary=${boundary}` },
      );
      expect(res.statusCode, compression).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'unsupported_archive',
        message: 'compression must be zip, tar.gz or tgz',
      });
    }
    expectNoErrorLog();
  });

  it('a repeated metadata or compression field → 400 invalid_multipart before any fee, not the last one silently', async () => {
    for (const [name, value] of [
      ['metadata', JSON.stringify({ ...METADATA, title: 'Another title' })],
      ['compression', 'zip'],
    ] as const) {
      const [head, tail] = form([
        field('metadata', JSON.stringify(METADATA)),
        field('compression', 'zip'),
        field(name, value),
        filePart('file', '\0'),
      ]).split('\0');
      const res = await post(
        Buffer.concat([Buffer.from(head!), zipOf(uniqueProject()), Buffer.from(tail!)]),
        { 'content-type': `multipart/form-data; boundary=${boundary}` },
      );
      expect(res.statusCode, name).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'invalid_multipart',
        message: `send the "${name}" field once`,
      });
    }
    expectNoErrorLog();
  });

  it('two file parts → 413 too_many_parts', async () => {
    const res = await post(
      form([
        field('metadata', JSON.stringify(METADATA)),
        filePart('file', 'PK'),
        filePart('x', 'PK'),
      ]),
      { 'content-type': `multipart/form-data; boundary=${boundary}` },
    );
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'too_many_parts' });
    expectNoErrorLog();
  });
});

/**
 * Over a real socket: a multipart upload declared at 1 GB, its first bytes `start`, then `fill`
 * bytes in 64 KiB chunks until the answer's head arrives or `cap` bytes are sent (socket buffers
 * hold a few MB besides what the server has read).
 */
async function sendUntilAnswered(
  port: number,
  boundary: string,
  start: string,
  fill: number,
  cap: number,
  opts: { chunked?: boolean } = {},
): Promise<{ sock: Socket; answer: string; sent: number }> {
  const sock = connect(port, '127.0.0.1');
  let answer = '';
  sock.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  sock.on('error', () => {});
  await new Promise((resolve) => sock.once('connect', resolve));
  const framing = opts.chunked ? 'Transfer-Encoding: chunked' : 'Content-Length: 1000000000';
  sock.write(
    `POST /api/v1/items HTTP/1.1\r\nHost: marketplace.test\r\n${framing}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\n\r\n`,
  );
  const frame = (b: Buffer) =>
    opts.chunked
      ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
      : b;
  if (start) sock.write(frame(Buffer.from(start, 'latin1')));
  const chunk = frame(Buffer.alloc(64 * 1024, fill));
  let sent = 0;
  while (!answer.includes('\r\n\r\n') && sent < cap && !sock.destroyed) {
    if (!sock.write(chunk)) await new Promise((resolve) => setTimeout(resolve, 2));
    sent += 64 * 1024;
  }
  return { sock, answer, sent };
}

/** Goes on sending chunked zeros on `sock` until the server ends it or `cap` bytes; returns how many. */
async function sendUntilClosed(sock: Socket, cap: number): Promise<number> {
  const chunk = Buffer.concat([
    Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
    Buffer.alloc(64 * 1024),
    Buffer.from('\r\n'),
  ]);
  let sent = 0;
  while (!sock.destroyed && sent < cap) {
    if (!sock.write(chunk)) await new Promise((resolve) => setTimeout(resolve, 2));
    sent += 64 * 1024;
  }
  return sent;
}
