import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { startSellingApp, upload, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * A full disk while an upload is stored: 503 storage_unavailable with retry_after, nothing
 * half-written, no item. The disk is the outside world: the archive store here is the real
 * filesystem store, fed bytes that stop with the kernel's own ENOSPC (from a write to /dev/full)
 * after half of them reached its temporary file.
 */

let t: SellingContext;
let realStore: BlobStore;
beforeAll(async () => {
  t = await startSellingApp();
  realStore = t.runtime.deps.storage;
});
afterAll(() => t.close());

async function kernelEnospc(): Promise<Error> {
  const err = await writeFile('/dev/full', 'x').then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect((err as NodeJS.ErrnoException | undefined)?.code).toBe('ENOSPC');
  return err!;
}

it('a full disk answers 503 storage_unavailable; no partial file and no item row remain', async () => {
  const enospc = await kernelEnospc();
  const fullDisk: BlobStore = Object.create(realStore) as BlobStore;
  fullDisk.put = (key, body, opts) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    async function* halfThenFull() {
      yield bytes.subarray(0, bytes.length >> 1);
      throw enospc;
    }
    return realStore.put(key, Readable.from(halfThenFull()), opts);
  };
  t.runtime.deps.storage = fullDisk;
  const bytes = zipOf(uniqueProject());
  try {
    const { first, paid } = await upload(t, newWallet(), { bytes });
    expect(first.statusCode).toBe(402);
    expect(paid.statusCode).toBe(503);
    const body = paid.json() as { error: string; message: string; retry_after: number };
    expect(body.error).toBe('storage_unavailable');
    expect(body.message).toMatch(/nothing was stored/);
    expect(body.retry_after).toBeGreaterThan(0);
    expect(paid.headers['retry-after']).toBe(String(body.retry_after));
  } finally {
    t.runtime.deps.storage = realStore;
  }
  expect(await t.blobFiles()).toEqual([]);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const rows = await t.runtime.deps.sql`select id from items where archive_sha256 = ${sha}`;
  expect(rows).toHaveLength(0);
  // With space again, the same archive lists normally.
  const again = await upload(t, newWallet(), { bytes });
  expect(again.paid.statusCode).toBe(202);
});
