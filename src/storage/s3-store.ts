import type { S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import {
  assertValidKey,
  collect,
  payloadTooLarge,
  sha256Hex,
  storageUnavailable,
  type BlobStore,
  type PutResult,
} from './blob-store.js';

type Sdk = typeof import('@aws-sdk/client-s3');
let sdkLoading: Promise<Sdk> | undefined;
/** The AWS SDK (slow and large to load) is loaded by the first S3 call, not by every process. */
const loadSdk = () => (sdkLoading ??= import('@aws-sdk/client-s3'));

/**
 * The store out of reach (no HTTP answer: refused, reset, timed out) or failing on its side (5xx),
 * as opposed to a refusal of the request (4xx: credentials, bucket, a bad digest), which stays an
 * error for the operator.
 */
function storeOutage(e: unknown): boolean {
  const err = e as { $metadata?: { httpStatusCode?: unknown }; code?: unknown; name?: unknown };
  const status = err?.$metadata?.httpStatusCode;
  if (typeof status === 'number') return status >= 500;
  return (
    typeof err?.code === 'string' || err?.name === 'TimeoutError' || err?.name === 'AbortError'
  );
}

/** 503 `storage_unavailable`, with the store's error as its cause for the operator's log. */
function unavailable(e: unknown): Error {
  const err = storageUnavailable();
  err.cause = e;
  return err;
}

export interface S3StoreOptions {
  bucket: string;
  region: string;
  /** Custom endpoint for S3-compatible services (MinIO, R2, Ceph…). */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /** Prefix prepended to every key, e.g. `marketplace/`. */
  prefix?: string;
  /** How long a call may take until its answer starts (S3_TIMEOUT_SECONDS); unbounded when unset. */
  timeoutMs?: number;
}

/**
 * Blobs in an S3-compatible bucket through the official AWS SDK. Archives are at most a few MB, so
 * a put collects the (capped) body first: that gives the SHA-256 and an exact Content-Length, and
 * S3's PutObject is atomic, so readers never see partial objects and a refused body stores nothing.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private connecting: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  /** A collecting read silent this long is the store stalled (the same bound as a call's answer). */
  readonly stallMs: number | undefined;

  constructor(private readonly opts: S3StoreOptions) {
    this.stallMs = opts.timeoutMs;
  }

  private s3(): Promise<{ sdk: Sdk; client: S3Client }> {
    const opts = this.opts;
    return (this.connecting ??= loadSdk().then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: opts.region,
        endpoint: opts.endpoint,
        forcePathStyle: opts.forcePathStyle,
        credentials:
          opts.accessKeyId && opts.secretAccessKey
            ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
            : undefined,
      }),
    })));
  }

  /**
   * Sends a command, abandoned once `timeoutMs` pass before its answer starts (the SDK's retries
   * included): a path to the store that accepts and never answers held a download or a scan
   * forever. The timer stops at the answer, so a download's body streams at the buyer's pace.
   */
  private async within<T>(
    call: (options: { abortSignal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const ms = this.opts.timeoutMs;
    if (!ms) return call({});
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ms);
    try {
      return await call({ abortSignal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }

  private keyOf(key: string): string {
    assertValidKey(key);
    return `${this.opts.prefix ?? ''}${key}`;
  }

  async put(
    key: string,
    body: Buffer | Readable,
    opts: { maxBytes?: number; contentType?: string } = {},
  ): Promise<PutResult> {
    const { sdk, client } = await this.s3();
    const buf = Buffer.isBuffer(body) ? body : await collect(body, opts.maxBytes ?? Infinity);
    if (opts.maxBytes !== undefined && buf.length > opts.maxBytes)
      throw payloadTooLarge(opts.maxBytes);
    const sha256 = sha256Hex(buf);
    try {
      await this.within((o) =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket: this.opts.bucket,
            Key: this.keyOf(key),
            Body: buf,
            ContentLength: buf.length,
            ContentType: opts.contentType ?? 'application/octet-stream',
            ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
          }),
          o,
        ),
      );
    } catch (e) {
      // the store down or failing (after the SDK's own retries): nothing stored, nothing charged
      if (storeOutage(e)) throw unavailable(e);
      throw e;
    }
    return { size: buf.length, sha256 };
  }

  async createReadStream(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const { sdk, client } = await this.s3();
    let res;
    try {
      res = await this.within((o) =>
        client.send(
          new sdk.GetObjectCommand({
            Bucket: this.opts.bucket,
            Key: this.keyOf(key),
            Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined,
          }),
          o,
        ),
      );
    } catch (e) {
      // the store down: a scan waits for it, a download answers 503 (as stat and put do)
      if (storeOutage(e)) throw unavailable(e);
      throw e;
    }
    const body = res.Body;
    if (body instanceof Readable) return body;
    if (body && 'transformToWebStream' in body) {
      return Readable.fromWeb(
        body.transformToWebStream() as Parameters<typeof Readable.fromWeb>[0],
      );
    }
    throw new Error(`S3 returned no body for ${key}`);
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const { sdk, client } = await this.s3();
    try {
      const res = await this.within((o) =>
        client.send(
          new sdk.HeadObjectCommand({ Bucket: this.opts.bucket, Key: this.keyOf(key) }),
          o,
        ),
      );
      return { size: res.ContentLength ?? 0 };
    } catch (e) {
      if (e instanceof sdk.NotFound || e instanceof sdk.NoSuchKey) return undefined;
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return undefined;
      // an upload asks first whether the bytes are there: the store down answers it as a put would
      if (storeOutage(e)) throw unavailable(e);
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.s3();
    await this.within((o) =>
      client.send(
        new sdk.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.keyOf(key) }),
        o,
      ),
    );
  }

  async *list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const { sdk, client } = await this.s3();
    const base = this.opts.prefix ?? '';
    let token: string | undefined;
    do {
      const page = await this.within((o) =>
        client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.opts.bucket,
            Prefix: `${base}${prefix}`,
            ...(token && { ContinuationToken: token }),
          }),
          o,
        ),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key)
          yield { key: o.Key.slice(base.length), modifiedAt: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
