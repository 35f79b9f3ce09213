/**
 * Where the domain reports what operators measure (src/telemetry/metrics.ts implements it): one
 * call at each result point, cheap enough for every request. A file of its own so that any
 * domain module can take it without importing the other ports.
 */
export interface Telemetry {
  /**
   * A finished scan attempt: `approved`, a rejection reason, `processing_error` (the last failed
   * attempt) or `error` (a failed attempt that is retried); the duration when known.
   */
  scanned(outcome: string, seconds?: number): void;
  /** A search served, with the number of results. */
  searched(results: number, seconds: number): void;
  /** A payout job result for one payout address (or `count` of them) on a chain. */
  payout(chain: string, result: string, count?: number): void;
}
