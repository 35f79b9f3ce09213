import path from 'node:path';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { FsBlobStore } from './fs-store.js';
import { S3BlobStore } from './s3-store.js';

export function createBlobStore(config: Config): BlobStore {
  if (config.STORAGE === 's3') {
    return new S3BlobStore({
      bucket: config.S3_BUCKET!,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      prefix: config.S3_PREFIX,
      timeoutMs: config.S3_TIMEOUT_SECONDS * 1000,
    });
  }
  return new FsBlobStore(config.ARCHIVES_DIR ?? path.join(config.DATA_DIR, 'archives'));
}

export { FsBlobStore } from './fs-store.js';
export { S3BlobStore } from './s3-store.js';
export { readBlob, collect, sha256Hex, type BlobStore, type PutResult } from './blob-store.js';
