import type { Address } from 'viem';
import type { Config } from '../config.js';
import type { Sql } from '../db/index.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { PayoutAddressing } from './accounts/accounts.js';
import type { Attestor } from './scan/attestor.js';
import type { PaymentProcessor } from './payments/processor.js';

/**
 * The narrow interfaces the domain takes from the process that runs it. `src/deps.ts` (`Deps`, wired
 * once by src/runtime.ts) satisfies them; the domain never imports the wiring, so it stays below it.
 */

/** Wakes this process's job runner when work was queued (src/jobs/runner.ts `WorkSignal`). */
export interface WorkWaker {
  wake(): void;
}

/** What listing an archive needs: the fee, the blob store, the item rows and the scan job. */
export interface ListingPorts {
  config: Config;
  sql: Sql;
  storage: BlobStore;
  payments: PaymentProcessor;
  /** Recipient of the listing fee. */
  platformPayTo: Address;
  secrets: { urlSigningKey: Buffer };
  work: WorkWaker;
}

/** What loading the demo catalogue needs. */
export interface DemoPorts {
  config: Config;
  sql: Sql;
  storage: BlobStore;
  embedder: Embedder;
  payoutAddressing: PayoutAddressing;
  /** Signs each demo listing's scan report, as the scan job signs an upload's. */
  attestor?: Attestor;
}

export type { Telemetry } from './telemetry.js';
