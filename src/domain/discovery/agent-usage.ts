/**
 * The agent guide served at `/agent-usage`: a Markdown walk-through an agent can follow end to end
 * (search, buy, sell, account), with every URL absolute for this deployment.
 */
import { toMicro } from '../../wire/money.js';
import { agentUsageRevisionA } from './agent-usage-a.js';
import {
  archiveMb,
  limitsSection,
  listingLimitValues,
  renderGuide,
  type AgentUsageOptions,
} from './guide.js';

export function agentUsageMarkdown(base: string, opts: AgentUsageOptions): string {
  if (opts.revision === 'A') return agentUsageRevisionA(base, opts);
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
    feedback_window_days: opts.feedbackWindowDays,
    rating_threshold: opts.ratingThreshold,
    platform_feedback_per_day: opts.platformFeedbackPerDay,
    limits_section: limitsSection(7, opts),
    ...listingLimitValues(),
  });
}
