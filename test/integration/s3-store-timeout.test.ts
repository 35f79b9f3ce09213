import { afterAll, beforeAll, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { collect, readBlob } from '../../src/storage/blob-store.js';
import { S3BlobStore } from '../../src/storage/s3-store.js';
import { randomBytes } from 'node:crypto';
import { startS3 } from '../helpers/s3.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';

/**
 * The path to the object store hangs (it accepts connections and never answers: a dropped
 * network, a wedged proxy): each call gives up after S3_TIMEOUT_SECONDS and answers as the store
 * out of reach (503 `storage_unavailable`, which a download returns and a scan waits on), instead
 * of holding the request for ever. s3rver behind a relay the test holds.
 */
let s3: Awaited<ReturnType<typeof startS3>>;
let relay: Awaited<ReturnType<typeof startTcpRelay>>;
let store: S3BlobStore;
/** The same bucket without a timeout: what the test puts in place (a 6 MB put may take a while). */
let setup: S3BlobStore;

beforeAll(async () => {
  s3 = await startS3();
  const endpoint = new URL(s3.env.S3_ENDPOINT);
  relay = await startTcpRelay({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(relay.port);
  store = new S3BlobStore({ ...options(endpoint.origin), timeoutMs: 1_000 });
  setup = new S3BlobStore({ ...options(endpoint.origin) });
});
afterAll(async () => {
  await relay?.close();
  await s3?.close();
});

const options = (endpoint: string) => ({
  bucket: s3.env.S3_BUCKET,
  region: 'us-east-1',
  endpoint,
  accessKeyId: s3.env.S3_ACCESS_KEY_ID,
  secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY,
  forcePathStyle: true,
});

/** What a call settles with within `ms`: its value, its error's code, or that it is still waiting. */
async function settled(call: () => Promise<unknown>, ms = 8_000) {
  const started = Date.now();
  const outcome = await Promise.race([
    call().then(
      () => 'answered',
      (e: unknown) => (e instanceof AppError ? e.code : `error ${String(e)}`),
    ),
    new Promise<string>((r) => setTimeout(() => r(`still waiting after ${ms} ms`), ms)),
  ]);
  return { outcome, ms: Date.now() - started };
}

it('gives up on a hung path within its timeout, as the store out of reach, and serves again after', async () => {
  await setup.put('items/a.zip', Buffer.from('archive bytes'));
  relay.hold();
  try {
    for (const call of [
      () => store.createReadStream('items/a.zip'),
      () => store.stat('items/a.zip'),
      () => store.put('items/b.zip', Buffer.from('more bytes')),
    ]) {
      const { outcome, ms } = await settled(call);
      expect(outcome).toBe('storage_unavailable');
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(4_000);
    }
  } finally {
    await relay.restore();
  }
  expect(await store.stat('items/a.zip')).toEqual({ size: 13 });
  const body = await store.createReadStream('items/a.zip');
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('archive bytes');
}, 40_000);

it("a scan's read that stalls in the middle of the archive ends as the store out of reach", async () => {
  // large enough that the sockets' buffers cannot hold it: the stall comes mid-body
  const archive = randomBytes(6 * 1024 * 1024);
  await setup.put('items/big.zip', archive);
  const stream = await store.createReadStream('items/big.zip');
  relay.freeze();
  try {
    // what readBlob (the scan's read) gives collect: the store's own bound
    expect(store.stallMs).toBe(1_000);
    const { outcome, ms } = await settled(() => collect(stream, 10 * 1024 * 1024, store.stallMs));
    expect(outcome).toBe('storage_unavailable');
    expect(ms).toBeLessThan(4_000);
  } finally {
    await relay.restore();
  }
  // the scan's read with nothing stalled gets every byte
  const again = await readBlob(store, 'items/big.zip', 10 * 1024 * 1024);
  expect(again.equals(archive)).toBe(true);
}, 40_000);
