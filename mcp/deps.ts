import type { CatalogClient } from '../src/client/catalog.js';
import type { MarketplaceClient } from '../src/client/index.js';
import type { Tracing } from '../src/telemetry/tracing.js';
import type { SpendingLimits } from './config.js';
import type { Approvals } from './approvals.js';
import type { LocalState } from './state.js';

/** What the tools need: REST clients and local files, never the database or the domain's services. */
export interface McpDeps {
  /** The marketplace's public base URL (for links in descriptions and messages). */
  baseUrl: string;
  /** Public catalogue reads (and the unsigned purchase prompt); no wallet involved. */
  catalog: Pick<
    CatalogClient,
    'search' | 'getItem' | 'quote' | 'preview' | 'attestation' | 'attestationSigners'
  >;
  /**
   * The client that signs with the configured wallet, built on first use (viem and x402 load
   * then, so a client connects without waiting for them); absent when no key is configured.
   * On a Revision A marketplace the first use also registers the wallet (or rotates its key):
   * `username` is the name to register with when that first use is set_username's.
   */
  wallet: ((hint?: { username?: string }) => Promise<MarketplaceClient>) | undefined;
  /** The operator's spending limits; a tool call can only lower them. */
  limits: SpendingLimits;
  /** Orders bought here and the 24-hour spending ledger. */
  state: LocalState;
  /** Where acquire_item saves archives. */
  downloadDir: string;
  /**
   * OpenTelemetry when the OTEL_* settings turn it on: each tool call is a span, and the REST
   * calls it makes carry its trace context (`traceparent`) to the marketplace.
   */
  tracing?: Pick<Tracing, 'span'>;
  /**
   * Recipients and assets this server may pay (lower-case addresses; empty or absent: any the
   * marketplace names). Checked against the marketplace's answer before anything is signed.
   */
  allow?: { payTo: string[]; assets: string[] };
  /** The approval path for clients that cannot ask (absent: such purchases are refused). */
  approvals?: Approvals;
  /**
   * The server's log (JSON lines on stderr in the entry): what a tool did that its caller may not
   * see, e.g. a payment made before the call was cancelled.
   */
  log?: (level: 'info' | 'error', msg: string, extra?: object) => void;
}
