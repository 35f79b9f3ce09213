import type { Logger } from 'pino';
import type { ChainReadFailure } from '../../x402/facilitator.js';

/**
 * Why claims wait undecided: a node without (or failing) the JSON-RPC method a recheck needs
 * leaves every claim on its network open, listed among the unresolved payments but without a
 * reason. Each recheck records the failure it met (or that the claim was read); the reconciler's
 * pass then logs ONE warning per cause (network and method) per period, naming the method and how
 * many claims wait on it, instead of one line per claim per pass. Per process, in memory.
 */
export class ChainReadWarnings {
  /** cause key -> the failure and the claims whose last read met it */
  private readonly waiting = new Map<string, { failure: ChainReadFailure; claims: Set<string> }>();
  /** cause key -> when it was last warned of (ms) */
  private readonly warned = new Map<string, number>();

  /** A recheck of `paymentId` could not read the chain (`failure`), or could (undefined). */
  record(paymentId: string, failure: ChainReadFailure | undefined): void {
    for (const [key, entry] of this.waiting) {
      entry.claims.delete(paymentId);
      if (entry.claims.size === 0) this.waiting.delete(key);
    }
    if (!failure) return;
    const key = `${failure.network} ${failure.method ?? ''} ${failure.code ?? ''}`;
    const entry = this.waiting.get(key) ?? { failure, claims: new Set<string>() };
    entry.claims.add(paymentId);
    this.waiting.set(key, entry);
  }

  /**
   * Logs each cause with claims waiting on it, unless it was logged less than `periodSeconds`
   * ago; a cause that no claim meets any more is forgotten (it is warned of at once if it comes back).
   */
  flush(logger: Pick<Logger, 'warn'>, periodSeconds: number, now = Date.now()): void {
    for (const key of this.warned.keys()) if (!this.waiting.has(key)) this.warned.delete(key);
    for (const [key, { failure, claims }] of this.waiting) {
      const last = this.warned.get(key);
      if (last !== undefined && now - last < periodSeconds * 1000) continue;
      this.warned.set(key, now);
      const what = failure.method
        ? `the RPC node failed ${failure.method}`
        : 'no RPC URL is configured for it';
      logger.warn(
        {
          network: failure.network,
          rpcMethod: failure.method ?? null,
          ...(failure.code !== undefined && { rpcErrorCode: failure.code }),
          claims: claims.size,
        },
        `chain unreadable on ${failure.network}: ${what}; ${claims.size} payment claim(s) wait undecided`,
      );
    }
  }
}
