import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { AppError } from '../errors.js';

/**
 * Where archive bytes live. One interface, two implementations: the filesystem (embedded default,
 * under DATA_DIR/archives) and any S3-compatible bucket. Keys are opaque, slash-separated,
 * relative names such as `archives/3f0c….zip`; callers never build filesystem paths themselves.
 */
export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /**
   * How long a reader that collects a whole object (`readBlob`) waits for the next bytes before
   * the read counts as the store out of reach; unset where reads cannot stall (the filesystem).
   */
  readonly stallMs?: number;
  /**
   * Stores the bytes under `key` atomically (readers never see a partial object) and returns their
   * size and SHA-256. A stream is consumed once; with `maxBytes` it is cut off past the limit with
   * 413 `payload_too_large` and nothing is kept.
   */
  put(
    key: string,
    body: Buffer | Readable,
    opts?: { maxBytes?: number; contentType?: string },
  ): Promise<PutResult>;
  /** The bytes of `key`, optionally a byte range (inclusive `end`, as in HTTP Range). */
  createReadStream(key: string, range?: { start: number; end?: number }): Promise<Readable>;
  /** Size of `key`, or undefined when absent. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes `key`; removing an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, with its last modification (for sweeps). */
  list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }>;
  /**
   * Removes what puts that never finished left behind before `before` (a process killed mid-put)
   * and says how many. Absent where an unfinished put leaves nothing (S3 PutObject).
   */
  removeAbandonedPuts?(before: Date): Promise<number>;
}

export interface PutResult {
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are relative, slash-separated, no `..`, no empty or dot segments: safe on every backend. */
export function assertValidKey(key: string): void {
  if (
    key.length > 512 ||
    !KEY_RE.test(key) ||
    key.split('/').some((s) => s === '.' || s === '..')
  ) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}

export function payloadTooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', { message: `archive exceeds ${maxBytes} bytes` });
}

/** The disk is full or over quota: the outside world, not the request. */
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT']);
/** Seconds a client waits before retrying an upload refused for a full disk. */
export const STORAGE_RETRY_AFTER_SECONDS = 60;

/** 503 `storage_unavailable` with `retry_after` (and its header); `message` for the context. */
export function storageUnavailable(message?: string): AppError {
  return new AppError('storage_unavailable', {
    ...(message !== undefined && { message }),
    retry_after: STORAGE_RETRY_AFTER_SECONDS,
    headers: { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
  });
}

/**
 * A store failure as the caller's answer: a full disk is 503 `storage_unavailable` with
 * `retry_after` (nothing was stored, nothing was charged); anything else is left as it is.
 */
export function storageFailure(e: unknown): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !STORAGE_FULL.has(code)) return e;
  return storageUnavailable();
}

/** Reads a whole blob into memory, refusing more than `maxBytes` (archives are small and bounded). */
export async function readBlob(store: BlobStore, key: string, maxBytes: number): Promise<Buffer> {
  const stream = await store.createReadStream(key);
  return collect(stream, maxBytes, store.stallMs);
}

/**
 * Collects a stream into one buffer with a hard cap; destroys the stream past the cap. With
 * `stallMs`, a stream that sends nothing for that long (a path to the store that stalls in the
 * middle of an answer) is ended as the store out of reach, 503 `storage_unavailable`: a reader
 * that collects never waits on its own consumer, so silence is the store's.
 */
export async function collect(
  stream: Readable,
  maxBytes: number,
  stallMs?: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (!stallMs) return;
    clearTimeout(timer);
    timer = setTimeout(
      () => stream.destroy(storageUnavailable('the object store stopped sending mid-read')),
      stallMs,
    );
  };
  arm();
  try {
    for await (const chunk of stream) {
      arm();
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      if (size > maxBytes) {
        stream.destroy();
        throw payloadTooLarge(maxBytes);
      }
      chunks.push(buf);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}

export function sha256Hex(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

export function toReadable(body: Buffer | Readable): Readable {
  return Buffer.isBuffer(body) ? Readable.from([body]) : body;
}
