import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Sql } from './db/index.js';
import type { PaymentDeps } from './domain/payments/setup.js';
import type { Embedder } from './embeddings/embedder.js';
import type { BlobStore } from './storage/blob-store.js';
import type { WorkSignal } from './jobs/runner.js';

/**
 * Everything the HTTP app, the MCP server and the workers need, built once by `createRuntime`.
 * Tests build it the same way over an in-memory embedded database.
 */
export interface Deps extends PaymentDeps {
  config: Config;
  sql: Sql;
  logger: Logger;
  embedder: Embedder;
  /** Archive bytes: filesystem or S3-compatible (src/storage/). */
  storage: BlobStore;
  /** Secrets generated or loaded at start-up (see src/secrets.ts). */
  secrets: { urlSigningKey: Buffer };
  /** Wakes this process's job runner when work was queued (src/jobs/runner.ts). */
  work: WorkSignal;
}
