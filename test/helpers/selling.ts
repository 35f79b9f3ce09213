import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { LocalAccount } from 'viem';
import { startTestApp, type TestContext } from './app.js';
import { promptOf, signPayment } from './wallets.js';

export interface SellingContext extends TestContext {
  archivesDir: string;
  /** Runs every due job (the scan worker, in the test's own process). */
  work(): Promise<number>;
  /** Relative paths of every file in the blob store. */
  blobFiles(): Promise<string[]>;
}

/** The real app over in-memory Postgres with a private filesystem blob store. */
export async function startSellingApp(
  env: Record<string, string> = {},
  opts: { logger?: Logger } = {},
): Promise<SellingContext> {
  const archivesDir = await mkdtemp(path.join(tmpdir(), 'archives-'));
  const t = await startTestApp(
    { ARCHIVES_DIR: archivesDir, SCAN_RETRY_BASE_MS: '0', ...env },
    opts,
  );
  return {
    ...t,
    archivesDir,
    work: () => t.runtime.runDueJobs(),
    async blobFiles() {
      const entries = await readdir(archivesDir, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(archivesDir, path.join(e.parentPath, e.name)))
        .sort();
    },
    async close() {
      await t.close();
      await rm(archivesDir, { recursive: true, force: true });
    },
  };
}

export const METADATA = {
  title: 'Todo REST API',
  description: 'A small REST API for todos with tests.',
  tech_stack: 'TypeScript, Node.js',
  prices: { USDC: 5 },
};

export interface UploadInput {
  bytes: Buffer;
  compression?: 'zip' | 'tar.gz';
  metadata?: unknown;
  /** multipart (default) or the JSON encoding. */
  encoding?: 'multipart' | 'json';
  fileName?: string;
}

export function uploadRequest(input: UploadInput): {
  payload: Buffer | string;
  headers: Record<string, string>;
} {
  const compression = input.compression ?? 'zip';
  const metadata = input.metadata === undefined ? METADATA : input.metadata;
  if (input.encoding === 'json') {
    return {
      payload: JSON.stringify({
        compression,
        file: input.bytes.toString('base64'),
        metadata,
        ...(input.fileName !== undefined && { file_name: input.fileName }),
      }),
      headers: { 'content-type': 'application/json' },
    };
  }
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const fileName = input.fileName ?? (compression === 'zip' ? 'project.zip' : 'project.tar.gz');
  const parts = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${typeof metadata === 'string' ? metadata : JSON.stringify(metadata)}\r\n`,
    ),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    input.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ];
  return {
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** The unpaid call, then the paid retry signed from the 402 prompt (the x402 handshake). */
export async function upload(t: TestContext, wallet: LocalAccount, input: UploadInput) {
  const req = uploadRequest(input);
  const first = await t.app.inject({ method: 'POST', url: '/api/v1/items', ...req });
  if (first.statusCode !== 402) return { first, paid: first, signature: undefined };
  const prompt = promptOf(first);
  const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
  const paid = await t.app.inject({
    method: 'POST',
    url: '/api/v1/items',
    payload: req.payload,
    headers: { ...req.headers, 'payment-signature': header },
  });
  return { first, paid, signature: header };
}

/** Uploads and asserts 202; returns the item id. */
export async function listItem(
  t: TestContext,
  wallet: LocalAccount,
  input: UploadInput,
): Promise<string> {
  const { paid } = await upload(t, wallet, input);
  if (paid.statusCode !== 202) throw new Error(`upload answered ${paid.statusCode}: ${paid.body}`);
  return (paid.json() as { item_id: string }).item_id;
}

/** An identity (zero-value) call: bodiless probe, 402, signed retry. */
export async function asWallet(
  t: TestContext,
  wallet: LocalAccount,
  method: 'GET' | 'DELETE',
  url: string,
) {
  const first = await t.app.inject({ method, url });
  if (first.statusCode !== 402) return first;
  const prompt = promptOf(first);
  const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
  return t.app.inject({ method, url, headers: { 'payment-signature': header } });
}

export async function sellerStatus(
  t: TestContext,
  wallet: LocalAccount,
  itemId: string,
): Promise<{
  status: string;
  reason: string;
  findings?: Array<{ rule: string; kind: string; file?: string; line?: number }>;
}> {
  const res = await asWallet(t, wallet, 'GET', `/api/v1/seller/items/${itemId}/status`);
  if (res.statusCode !== 200) throw new Error(`status answered ${res.statusCode}: ${res.body}`);
  return res.json();
}
