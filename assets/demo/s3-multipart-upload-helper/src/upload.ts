import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

export interface UploadOptions {
  bucket: string;
  key: string;
  file: string;
  partSize?: number;
  concurrency?: number;
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

interface State {
  uploadId: string;
  parts: Record<number, { etag: string; checksum: string }>;
}

export async function uploadFile(s3: S3Client, opts: UploadOptions): Promise<string> {
  const partSize = opts.partSize ?? 16 * 1024 * 1024;
  const total = (await stat(opts.file)).size;
  const count = Math.max(1, Math.ceil(total / partSize));
  const stateFile = `${opts.file}.upload-state.json`;
  // resume: the upload id and finished parts of an interrupted run
  const state: State = existsSync(stateFile)
    ? JSON.parse(await readFile(stateFile, 'utf8'))
    : {
        uploadId: (await s3.send(new CreateMultipartUploadCommand({ Bucket: opts.bucket, Key: opts.key, ChecksumAlgorithm: 'SHA256' }))).UploadId!,
        parts: {},
      };
  let sent = Object.keys(state.parts).length * partSize;
  const fh = await open(opts.file, 'r');
  const pending = Array.from({ length: count }, (_, i) => i + 1).filter((n) => !state.parts[n]);
  async function worker() {
    for (let n = pending.shift(); n !== undefined; n = pending.shift()) {
      const length = Math.min(partSize, total - (n - 1) * partSize);
      const body = Buffer.alloc(length);
      await fh.read(body, 0, length, (n - 1) * partSize);
      const checksum = createHash('sha256').update(body).digest('base64');
      const res = await s3.send(
        new UploadPartCommand({ Bucket: opts.bucket, Key: opts.key, UploadId: state.uploadId, PartNumber: n, Body: body, ChecksumSHA256: checksum }),
      );
      if (res.ChecksumSHA256 && res.ChecksumSHA256 !== checksum) throw new Error(`part ${n}: checksum mismatch`);
      state.parts[n] = { etag: res.ETag!, checksum };
      await writeFile(stateFile, JSON.stringify(state));
      sent += length;
      opts.onProgress?.(Math.min(sent, total), total);
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  } finally {
    await fh.close();
  }
  await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: opts.bucket,
      Key: opts.key,
      UploadId: state.uploadId,
      MultipartUpload: {
        Parts: Object.entries(state.parts)
          .map(([n, p]) => ({ PartNumber: Number(n), ETag: p.etag, ChecksumSHA256: p.checksum }))
          .sort((a, b) => a.PartNumber - b.PartNumber),
      },
    }),
  );
  await rm(stateFile);
  return state.uploadId;
}
