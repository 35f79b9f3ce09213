import type { Logger } from 'pino';
import type { Address } from 'viem';
import type { RpcPayoutRail } from './chain/payout-rail-rpc.js';
import type { Config } from './config.js';
import type { Sql } from './db/index.js';
import type { PayoutAddressing } from './domain/accounts/accounts.js';
import type { SaleItemCache } from './domain/orders/acquire.js';
import type { PaymentProcessor } from './domain/payments/processor.js';
import type { Attestor } from './domain/scan/attestor.js';
import type { DemoPorts, ListingPorts } from './domain/ports.js';
import type { PayoutRail } from './domain/payouts/rail.js';
import type { Embedder } from './embeddings/embedder.js';
import type { WorkSignal } from './jobs/runner.js';
import type { BlobStore } from './storage/blob-store.js';
import type { Metrics } from './telemetry/metrics.js';
import type { Tracing } from './telemetry/tracing.js';
import type { Facilitator } from './x402/facilitator.js';
import type { X402Guard } from './x402/guard.js';
import type { PaymentNetworks } from './x402/networks.js';

export interface PaymentDeps {
  networks: PaymentNetworks;
  facilitator: Facilitator;
  /** The x402 guard for paid and identity routes (src/x402/guard.ts). */
  x402: X402Guard;
  /** Runs paid operations once per authorization (src/domain/payments/processor.ts). */
  payments: PaymentProcessor;
  /** Recipient of platform fees (listing fee): PLATFORM_PAY_TO, or derived from the signing secret. */
  platformPayTo: Address;
  /** Items as acquire prompts need them, briefly cached (src/domain/orders/acquire.ts). */
  saleItems: SaleItemCache;
  /**
   * Balances of payout addresses and their forwarding (src/domain/payouts/rail.ts): the dev
   * ledger by default; the on-chain mode puts an RPC implementation here.
   */
  payoutRail: PayoutRail;
  /** Payout addresses per seller and chain (src/chain/payout-address.ts): a port of the domain. */
  payoutAddressing: PayoutAddressing;
  /** PAYMENT_RAIL=chain: payout contracts over RPC (deployments, balances, distribute). */
  chainPayouts?: RpcPayoutRail;
}

/**
 * Everything the HTTP app, the MCP server and the workers need, wired once by `createRuntime`
 * (src/runtime.ts). Tests build it the same way over an in-memory embedded database.
 */
export interface Deps extends PaymentDeps, ListingPorts, DemoPorts {
  config: Config;
  sql: Sql;
  logger: Logger;
  embedder: Embedder;
  /** Archive bytes: filesystem or S3-compatible (src/storage/). */
  storage: BlobStore;
  /** Secrets generated or loaded at start-up (see src/secrets.ts). */
  secrets: { urlSigningKey: Buffer };
  /** The operator credential of /admin and the operator API (src/secrets.ts loadAdminToken). */
  adminToken: string;
  /** Signs each listing's scan report as it turns active (src/domain/scan/attestation.ts). */
  attestor: Attestor;
  /** Wakes this process's job runner when work was queued (src/jobs/runner.ts). */
  work: WorkSignal;
  /** The metric instruments (src/telemetry/metrics.ts); the domain's `Telemetry` port. */
  telemetry: Metrics;
  /** OpenTelemetry tracing when the OTEL_* settings turn it on (src/telemetry/tracing.ts). */
  tracing?: Tracing;
}
