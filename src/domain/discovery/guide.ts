import { readFileSync } from 'node:fs';
import { LISTING_LIMITS } from '../../wire/listings.js';

/**
 * What both agent guides (discovery/agent-usage.ts for Revision B, revision-a/agent-usage.ts for Revision A) share:
 * the deployment's values they are rendered with, and the sections common to both. Neither guide
 * imports the other's file for them.
 */
export interface AgentUsageOptions {
  revision: 'A' | 'B';
  listingFeeUsdc: number;
  maxArchiveBytes: number;
  minPriceUsdc: number;
  maxPriceUsdc: number;
  maxActiveListings: number;
  /** Days after a completed order during which its buyer may give item feedback. */
  feedbackWindowDays: number;
  /** Platform feedback messages per wallet per rolling 24 hours. */
  platformFeedbackPerDay: number;
  /** Minutes between two runs of the payout job. */
  payoutIntervalMinutes: number;
  /** Seconds past `validBefore` a transfer may still be mined (X402_CHAIN_CLOCK_GRACE_SECONDS). */
  chainClockGraceSeconds: number;
  ratingThreshold: number;
  /** Rate limits of this deployment (per replica; see limitsSection). */
  rateLimits: {
    windowSeconds: number;
    publicMax: number;
    challengeMax: number;
    accountMax: number;
    failureMax: number;
  };
  /** Revision A: name of the prompt's discovery entry beside `bazaar` (DISCOVERY_CATALOG_NAME). */
  catalogName: string;
}

/** How a guide names its revision's credential in the limits section. */
export interface CredentialWording {
  /** What a failed credential is. */
  failed: string;
  /** Rate-limit lines before the account line (A: SIWE challenges), each ending in a newline. */
  extraLimits: string;
  /** What the account limit counts per. */
  account: string;
}

/**
 * The guide's section on limits and service errors every client can meet, shared by both
 * revisions: rate limits (429 `rate_limited`), a full disk (503 `storage_unavailable`), the database out of
 * reach (503 `database_unavailable`), timeouts.
 */
export function limitsSection(
  n: number,
  opts: AgentUsageOptions,
  credential: CredentialWording,
): string {
  const r = opts.rateLimits;
  return `## ${n}. Limits and service errors

Rate limits count per window of ${r.windowSeconds} s and answer 429 \`rate_limited\` with
\`Retry-After\` (and \`retry_after\` in the body, in seconds): wait that long, then retry.
- Requests without a credential (search, details, 402 prompts): ${r.publicMax} per client address.
- ${credential.extraLimits}Account routes: ${r.accountMax} per ${credential.account}.
- Failed credentials (${credential.failed}): ${r.failureMax} per client address; past that, every
  signed or keyed request from that address answers 429 until the window ends. A request whose
  credential verifies never counts against its address, and a signed payment is never refused by
  the unsigned limit.

503 \`storage_unavailable\` (+\`retry_after\`): the archive store is full or unavailable; nothing was
stored or charged; upload again, or retry the same download link, after the delay. A paid order's
download answering 404 \`archive_unavailable\` (+\`order_id\`): the order stands but its archive is
missing from storage; retry later with fresh links of the order, never pay again. 
503 \`database_unavailable\` (+\`retry_after\`): the service's database is briefly out of reach (a
restart, a failover, every connection taken); send the very same request again after the delay (a
signed payment sent again is never charged twice and answers its one order). A request that stalls (headers or body not arriving in
time) is closed with 408 \`request_timeout\`. Malformed HTTP answers 400 \`invalid_request\`.
Every error body is \`{ "error": <code>, "message": <text> }\`, sometimes with more fields.
`;
}

const templates = new Map<string, string>();

/**
 * Renders a guide template (`assets/guides/<name>.md`, copied to `dist/assets/` by the build):
 * every `{{name}}` is replaced by its value. Throws on a placeholder without a value and on a
 * value no placeholder uses, so a template and its caller cannot drift apart silently.
 */
export function renderGuide(name: string, values: Record<string, string | number>): string {
  let template = templates.get(name);
  if (template === undefined) {
    template = readFileSync(new URL(`../../../assets/guides/${name}.md`, import.meta.url), 'utf8');
    templates.set(name, template);
  }
  const used = new Set<string>();
  const out = template.replace(/\{\{([a-z_]+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`guide ${name}: no value for {{${key}}}`);
    used.add(key);
    return String(value);
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`guide ${name}: no placeholder for ${unused.join(', ')}`);
  return out;
}

/** The archive size limit in MB, one decimal. */
export function archiveMb(opts: AgentUsageOptions): number {
  return Math.round((opts.maxArchiveBytes / 1024 / 1024) * 10) / 10;
}

/** The upload metadata limits, as both guides' placeholders: the values the upload enforces. */
export function listingLimitValues(): Record<string, number> {
  return {
    title_max: LISTING_LIMITS.title,
    description_max: LISTING_LIMITS.description,
    prompt_summary_max: LISTING_LIMITS.promptSummary,
    tech_stack_max: LISTING_LIMITS.techStack,
  };
}
