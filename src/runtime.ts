import type { Config } from './config.js';
import { openDatabase, type Database } from './db/index.js';
import { migrate } from './db/migrate.js';
import type { Deps } from './deps.js';
import { LISTING_FEE_OPERATION, listingFulfilment } from './domain/listings/listings.js';
import { createPayments } from './domain/payments/setup.js';
import { ensureVectorIndex } from './domain/search/vectors.js';
import { createEmbedder } from './embeddings/index.js';
import { createLogger } from './logger.js';
import { loadSecrets } from './secrets.js';
import { createBlobStore } from './storage/index.js';
import type { Logger } from 'pino';

export interface Runtime {
  deps: Deps;
  db: Database;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and builds the shared dependencies. Used by every process
 * entry (serve, worker, migrate, reindex, demo, mcp) and by the tests.
 */
export async function createRuntime(
  config: Config,
  opts: { logger?: Logger; migrate?: boolean } = {},
): Promise<Runtime> {
  const logger = opts.logger ?? createLogger(config);
  const db = await openDatabase(config);
  try {
    if (opts.migrate !== false) {
      const res = await migrate(db.sql);
      if (res.applied.length) logger.info({ applied: res.applied }, 'migrations applied');
    }
    const embedder = createEmbedder(config);
    if (opts.migrate !== false) await ensureVectorIndex(db.sql, embedder.dimensions);
    const secrets = await loadSecrets(config);
    const deps: Deps = {
      config,
      sql: db.sql,
      logger,
      embedder,
      storage: createBlobStore(config),
      secrets,
      ...createPayments(config, db.sql, logger, secrets),
    };
    // Selling: the listing fee's fulfilment creates the item and queues its scan (src/domain/listings/).
    deps.payments.define(LISTING_FEE_OPERATION, listingFulfilment(config));
    return {
      deps,
      db,
      async close() {
        await db.close();
      },
    };
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
