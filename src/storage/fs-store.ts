import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertValidKey,
  payloadTooLarge,
  storageFailure,
  toReadable,
  type BlobStore,
  type PutResult,
} from './blob-store.js';

/**
 * Blobs as files under one root directory. A put streams into a temporary file beside the target
 * (hashing and counting on the way) and renames it into place, so a reader sees the whole object or
 * nothing, and a failed or oversized put leaves no bytes behind. A full disk (ENOSPC, EDQUOT) is
 * 503 `storage_unavailable`.
 */
export class FsBlobStore implements BlobStore {
  readonly kind = 'fs' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const p = path.resolve(this.root, ...key.split('/'));
    if (!p.startsWith(this.root + path.sep)) throw new Error(`blob key escapes the store: ${key}`);
    return p;
  }

  async put(
    key: string,
    body: Buffer | Readable,
    opts: { maxBytes?: number } = {},
  ): Promise<PutResult> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true }).catch((e: unknown) => {
      throw storageFailure(e);
    });
    const tmp = `${target}.${randomUUID()}.partial`;
    const hash = createHash('sha256');
    let size = 0;
    const max = opts.maxBytes ?? Infinity;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (size > max) return cb(payloadTooLarge(max));
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    // flushed to the disk before it closes, and the rename with its directory: a listing whose
    // fee committed (durably, EMBEDDED_DB_FSYNC) never outlives its bytes after a power cut
    const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true });
    try {
      await pipeline(toReadable(body), meter, out);
      await rename(tmp, target);
      await syncDirectory(path.dirname(target));
    } catch (e) {
      // A stream refused in its first chunk fails the pipeline while the file is still being
      // opened: removing it before the open completes left it behind. Wait until it has closed.
      if (!out.closed) await new Promise<void>((closed) => out.once('close', () => closed()));
      await rm(tmp, { force: true });
      throw storageFailure(e);
    }
    return { size, sha256: hash.digest('hex') };
  }

  async createReadStream(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const p = this.pathOf(key);
    // Open eagerly so that a missing blob rejects here rather than on the first read.
    await stat(p);
    return createReadStream(p, range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Removes the temporary files of puts that never finished, older than `before`: a process
   * killed mid-put (kill -9, OOM) leaves one that nothing else would ever remove.
   */
  async removeAbandonedPuts(before: Date): Promise<number> {
    let entries;
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    let removed = 0;
    for (const e of entries) {
      if (!e.isFile() || !e.name.endsWith('.partial')) continue;
      const full = path.join(e.parentPath, e.name);
      const s = await stat(full).catch(() => undefined);
      if (s && s.mtime < before) {
        await rm(full, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async *list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    let entries;
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries) {
      if (!e.isFile()) continue;
      const full = path.join(e.parentPath, e.name);
      const key = path.relative(this.root, full).split(path.sep).join('/');
      // Temporary files of puts in flight are not objects yet.
      if (!key.startsWith(prefix) || e.name.endsWith('.partial')) continue;
      const s = await stat(full).catch(() => undefined);
      if (s) yield { key, modifiedAt: s.mtime };
    }
  }
}

/** fsync(2) of a directory, so a file renamed into it survives a power cut. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
