import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { FsBlobStore, readBlob, sha256Hex } from '../../src/storage/index.js';

let root: string;
let store: FsBlobStore;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'blobs-'));
  store = new FsBlobStore(root);
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(e.name);
  return out;
}

describe('FsBlobStore', () => {
  it('stores a stream atomically and reports size and sha256', async () => {
    const data = Buffer.from('hello archive bytes '.repeat(1000));
    const res = await store.put(
      'archives/a.zip',
      Readable.from([data.subarray(0, 7), data.subarray(7)]),
    );
    expect(res).toEqual({ size: data.length, sha256: sha256Hex(data) });
    expect(await store.stat('archives/a.zip')).toEqual({ size: data.length });
    expect((await readBlob(store, 'archives/a.zip', 1 << 20)).equals(data)).toBe(true);
    const part = await readBlob2(
      await store.createReadStream('archives/a.zip', { start: 6, end: 12 }),
    );
    expect(part.toString()).toBe(data.subarray(6, 13).toString());
  });

  it('cuts an oversized stream off with 413 and keeps no bytes', async () => {
    const big = Readable.from(
      (function* () {
        for (let i = 0; i < 100; i++) yield Buffer.alloc(1024, i);
      })(),
    );
    const err = await store
      .put('archives/big.zip', big, { maxBytes: 10 * 1024 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(413);
    expect(await store.stat('archives/big.zip')).toBeUndefined();
    expect((await listAll(root)).filter((n) => n.includes('big'))).toEqual([]);
  });

  it('lists finished objects under a prefix, never a put in flight', async () => {
    await store.put('listed/a.zip', Buffer.from('a'));
    await store.put('listed/sub/b.tar.gz', Buffer.from('b'));
    await store.put('elsewhere/c.zip', Buffer.from('c'));
    const gate = new Readable({ read() {} });
    gate.push(Buffer.from('partial'));
    const inFlight = store.put('listed/d.zip', gate);
    await new Promise((r) => setTimeout(r, 50));
    const listed: string[] = [];
    for await (const o of store.list('listed/')) {
      expect(o.modifiedAt).toBeInstanceOf(Date);
      listed.push(o.key);
    }
    expect(listed.sort()).toEqual(['listed/a.zip', 'listed/sub/b.tar.gz']);
    gate.push(null);
    await inFlight;
  });

  it('deletes idempotently and reports absent keys', async () => {
    await store.put('archives/d.zip', Buffer.from('x'));
    await store.delete('archives/d.zip');
    await store.delete('archives/d.zip');
    expect(await store.stat('archives/d.zip')).toBeUndefined();
    await expect(store.createReadStream('archives/d.zip')).rejects.toThrow();
  });

  it('refuses keys that could escape the root', async () => {
    for (const key of ['../x', '/etc/passwd', 'a/../../b', 'a//b', 'a\\b', '', '.hidden/x']) {
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/invalid blob key|escapes/);
    }
  });
});

async function readBlob2(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
