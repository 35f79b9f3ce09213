import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { readBlob, S3BlobStore, sha256Hex } from '../../src/storage/index.js';
import { freePort } from '../helpers/ports.js';

/**
 * The S3 store through the real AWS SDK against a minimal S3-compatible endpoint on loopback
 * (path-style PUT / GET with Range / HEAD / DELETE), the way it talks to MinIO or R2.
 */
const objects = new Map<string, Buffer>();
const seen: string[] = [];
let server: Server;
let store: S3BlobStore;

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const key = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    seen.push(`${req.method} ${key} ${req.headers.authorization ? 'signed' : 'unsigned'}`);
    if (req.method === 'PUT') {
      const data = await body(req);
      if (req.headers['content-type'] === 'bad-digest') {
        res.writeHead(400).end('<Error><Code>BadDigest</Code></Error>');
        return;
      }
      const sum = req.headers['x-amz-checksum-sha256'];
      if (sum && sum !== Buffer.from(sha256Hex(data), 'hex').toString('base64')) {
        res.writeHead(400).end('<Error><Code>BadDigest</Code></Error>');
        return;
      }
      objects.set(key, data);
      res.writeHead(200, { etag: '"x"' }).end();
      return;
    }
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
      const bucket = key.replace(/^\/|\/$/g, '');
      const prefix = `/${bucket}/${url.searchParams.get('prefix') ?? ''}`;
      const contents = [...objects.keys()]
        .filter((k) => k.startsWith(prefix))
        .map(
          (k) =>
            `<Contents><Key>${k.slice(bucket.length + 2)}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><Size>${objects.get(k)!.length}</Size></Contents>`,
        )
        .join('');
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<ListBucketResult><Name>${bucket}</Name><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
        );
      return;
    }
    const obj = objects.get(key);
    if (req.method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204).end();
      return;
    }
    if (!obj) {
      res
        .writeHead(404, { 'content-type': 'application/xml' })
        .end(
          req.method === 'HEAD'
            ? undefined
            : '<Error><Code>NoSuchKey</Code><Message>missing</Message></Error>',
        );
      return;
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const part = range
      ? obj.subarray(Number(range[1]), range[2] ? Number(range[2]) + 1 : undefined)
      : obj;
    res.writeHead(range ? 206 : 200, {
      'content-length': String(req.method === 'HEAD' ? obj.length : part.length),
    });
    res.end(req.method === 'HEAD' ? undefined : part);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  store = new S3BlobStore({
    bucket: 'archives-bucket',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'test',
    secretAccessKey: 'test-secret',
    forcePathStyle: true,
    prefix: 'mk/',
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('S3BlobStore', () => {
  it('puts, stats, reads (whole and ranged) and deletes through the SDK', async () => {
    const data = Buffer.from('zip bytes '.repeat(5000));
    expect(await store.put('archives/a.zip', Readable.from([data]))).toEqual({
      size: data.length,
      sha256: sha256Hex(data),
    });
    expect(seen.at(-1)).toBe('PUT /archives-bucket/mk/archives/a.zip signed');
    expect(await store.stat('archives/a.zip')).toEqual({ size: data.length });
    expect((await readBlob(store, 'archives/a.zip', 1 << 20)).equals(data)).toBe(true);
    const chunks: Buffer[] = [];
    for await (const c of await store.createReadStream('archives/a.zip', { start: 4, end: 8 }))
      chunks.push(Buffer.from(c as Uint8Array));
    expect(Buffer.concat(chunks).toString()).toBe(data.subarray(4, 9).toString());
    await store.delete('archives/a.zip');
    expect(await store.stat('archives/a.zip')).toBeUndefined();
    await expect(store.createReadStream('archives/a.zip')).rejects.toThrow();
  });

  it('lists the objects under a prefix with their keys as the store names them', async () => {
    await store.put('archives/x.zip', Buffer.from('x'));
    await store.put('other/y.zip', Buffer.from('y'));
    const listed: string[] = [];
    for await (const o of store.list('archives/')) listed.push(o.key);
    expect(listed).toContain('archives/x.zip');
    expect(listed).not.toContain('other/y.zip');
  });

  it('refuses an oversized stream with 413 and uploads nothing', async () => {
    const before = objects.size;
    const err = await store
      .put('archives/big.zip', Readable.from([Buffer.alloc(2048), Buffer.alloc(2048)]), {
        maxBytes: 3000,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(413);
    expect(objects.size).toBe(before);
  });

  it('answers 503 storage_unavailable when the store is down, and a refusal (4xx) stays an error', async () => {
    const down = new S3BlobStore({
      bucket: 'archives',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${await freePort()}`,
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
    });
    const err = await down.put('archives/x.zip', Buffer.from('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('storage_unavailable');
    expect((err as AppError).extras.retry_after).toBeGreaterThan(0);
    // an upload stats the key before it puts
    const stat = await down.stat('archives/x.zip').catch((e: unknown) => e);
    expect((stat as AppError).code).toBe('storage_unavailable');
    // the endpoint refuses a bad digest with 400 BadDigest: not an outage
    const refused = await store
      .put('archives/bad.zip', Buffer.from('x'), { contentType: 'bad-digest' })
      .catch((e: unknown) => e);
    expect(refused).not.toBeInstanceOf(AppError);
  });
});
