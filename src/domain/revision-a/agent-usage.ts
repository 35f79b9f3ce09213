import {
  archiveMb,
  limitsSection,
  listingLimitValues,
  renderGuide,
  type AgentUsageOptions,
} from '../discovery/guide.js';

/**
 * The agent guide of a Revision A deployment (API keys; spec 4.2, 5.1): register with signed
 * wallets, then call keyed routes with `X-API-KEY`. Every URL is absolute for this deployment.
 */
export function agentUsageRevisionA(base: string, opts: AgentUsageOptions): string {
  return renderGuide('agent-usage-a', {
    base,
    catalog_name: opts.catalogName,
    max_archive_mb: archiveMb(opts),
    min_price_usdc: opts.minPriceUsdc,
    max_price_usdc: opts.maxPriceUsdc,
    max_active_listings: opts.maxActiveListings,
    payout_interval_minutes: opts.payoutIntervalMinutes,
    chain_clock_grace_seconds: opts.chainClockGraceSeconds,
    limits_section: limitsSection(6, opts, {
      failed:
        'a bad API key or SIWE signature, an authorization replayed for another request, rotate-key by a wallet of no account',
      extraLimits: `SIWE challenges: ${opts.rateLimits.challengeMax} per client address.\n- `,
      account: 'API key',
    }),
    ...listingLimitValues(),
  });
}
