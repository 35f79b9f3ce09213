import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentUsageMarkdown } from '../../src/domain/discovery/agent-usage.js';
import { renderGuide } from '../../src/domain/discovery/guide.js';

const opts = {
  listingFeeUsdc: 0.25,
  maxArchiveBytes: 52428800,
  minPriceUsdc: 0.01,
  maxPriceUsdc: 100,
  maxActiveListings: 50,
  feedbackWindowDays: 30,
  platformFeedbackPerDay: 5,
  payoutIntervalMinutes: 60,
  chainClockGraceSeconds: 120,
  ratingThreshold: 2.5,
  rateLimits: {
    windowSeconds: 60,
    publicMax: 120,
    challengeMax: 10,
    accountMax: 60,
    failureMax: 20,
  },
  catalogName: 'catalog',
};
const fixture = (revision: string) =>
  readFileSync(new URL(`../fixtures/guides/agent-usage-${revision}.md`, import.meta.url), 'utf8');

describe('the agent guides rendered from assets/guides/*.md', () => {
  // the fixtures are the guides as the TypeScript template literals rendered them
  it('render Revision B byte for byte as before', () => {
    expect(agentUsageMarkdown('https://market.example', { ...opts, revision: 'B' })).toBe(
      fixture('b'),
    );
  });

  it('render Revision A byte for byte as before', () => {
    expect(agentUsageMarkdown('https://market.example', { ...opts, revision: 'A' })).toBe(
      fixture('a'),
    );
  });

  it('refuse a placeholder without a value and a value without a placeholder', () => {
    expect(() => renderGuide('agent-usage-a', { base: 'x' })).toThrow(/no value for \{\{/);
    const a = agentUsageMarkdown('https://m.example', { ...opts, revision: 'A' });
    expect(a).not.toContain('{{');
    expect(() =>
      renderGuide('agent-usage-a', {
        base: 'x',
        catalog_name: 'c',
        max_archive_mb: 1,
        min_price_usdc: 1,
        max_price_usdc: 1,
        max_active_listings: 1,
        payout_interval_minutes: 1,
        chain_clock_grace_seconds: 1,
        limits_section: '',
        title_max: 1,
        description_max: 1,
        prompt_summary_max: 1,
        tech_stack_max: 1,
        unused_value: 1,
      }),
    ).toThrow(/no placeholder for unused_value/);
  });
});
