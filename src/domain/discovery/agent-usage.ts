/**
 * The agent guide served at `/agent-usage`: a Markdown walk-through an agent can follow end to end
 * (search, buy, sell, account), with every URL absolute for this deployment.
 */
import { toMicro } from '../../wire/money.js';
import { agentUsageRevisionA } from '../revision-a/agent-usage.js';
import {
  archiveMb,
  limitsSection,
  listingLimitValues,
  renderGuide,
  type AgentUsageOptions,
} from './guide.js';

/** Revision B's guide: wallet identity, the paid upload. */
export function agentUsageRevisionB(base: string, opts: AgentUsageOptions): string {
  return renderGuide('agent-usage', {
    base,
    revision: opts.revision,
    max_archive_mb: archiveMb(opts),
    min_price_usdc: opts.minPriceUsdc,
    max_price_usdc: opts.maxPriceUsdc,
    listing_fee_usdc: opts.listingFeeUsdc,
    listing_fee_micro: String(toMicro(opts.listingFeeUsdc)),
    max_active_listings: opts.maxActiveListings,
    payout_interval_minutes: opts.payoutIntervalMinutes,
    chain_clock_grace_seconds: opts.chainClockGraceSeconds,
    feedback_window_days: opts.feedbackWindowDays,
    rating_threshold: opts.ratingThreshold,
    platform_feedback_per_day: opts.platformFeedbackPerDay,
    limits_section: limitsSection(7, opts, {
      failed:
        'a rejected payment or identity signature, an authorization replayed for another request, a proof from a wallet with no account',
      extraLimits: '',
      account: 'wallet',
    }),
    ...listingLimitValues(),
  });
}

const GUIDES = { A: agentUsageRevisionA, B: agentUsageRevisionB } as const;

/** The guide of `opts.revision` (the HTTP face serves its own directly). */
export function agentUsageMarkdown(base: string, opts: AgentUsageOptions): string {
  return GUIDES[opts.revision](base, opts);
}
