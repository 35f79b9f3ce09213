import type { Db } from '../../db/index.js';
import type { WellKnownX402 } from '../../wire/discovery.js';
import { sellerPayable } from '../items/public-item.js';

/**
 * The discovery documents an agent or an indexer reads before the API (docs/discovery-and-siwx.md):
 * `/.well-known/x402` (the paid resources of this origin) and `/llms.txt` (a short map for
 * language models).
 */

/** The hosted MCP endpoint and its tools, when it is on (MCP_HOSTED_ENABLED). */
export interface HostedMcpInfo {
  url: string;
  tools: { free: readonly string[]; paid: readonly string[]; identity: readonly string[] };
}

/** One line naming the hosted MCP endpoint, its transport and its tools by how they are paid. */
export function hostedMcpLine(mcp: HostedMcpInfo): string {
  const { free, paid, identity } = mcp.tools;
  const groups = [
    `${free.join(', ')} (free)`,
    `${paid.join(', ')} (paid: ${paid.includes('list_item') ? "the item's price, the listing fee" : "the item's price"})`,
    ...(identity.length > 0
      ? [
          `${identity.join(', ')} (identity: a zero-value proof in params._meta["x402/payment"], never settled, or a sign-in-with-x proof in params._meta["sign-in-with-x"])`,
        ]
      : []),
  ];
  const archive = paid.includes('list_item') ? ', list_item the archive in base64 in the call' : '';
  return `Hosted MCP server: ${mcp.url} (Streamable HTTP, stateless, POST; no wallet held: paid tools take the x402 payment in params._meta["x402/payment"]${archive}). Tools: ${groups.join('; ')}.`;
}

/**
 * Acquire URLs listed in `/.well-known/x402`, newest listings first; the rest is found by search.
 * Only listings a buyer can pay now (the seller's `payable_chains`, which reads the revision): an
 * indexer takes every URL here for a payable resource, and one whose seller has no payout address
 * deployed on a chain it sells on answers 409 `seller_wallet_missing`, not a 402.
 */
export const WELL_KNOWN_RESOURCE_CAP = 100;

export async function wellKnownX402(
  sql: Db,
  base: string,
  opts: { listingFee: boolean; mcp?: HostedMcpInfo },
): Promise<WellKnownX402> {
  const rows = await sql<{ id: string }[]>`
    select i.id from items i
    where i.status = 'active' and ${sellerPayable(sql)}
    order by i.created_at desc, i.id
    limit ${WELL_KNOWN_RESOURCE_CAP + 1}`;
  const capped = rows.length > WELL_KNOWN_RESOURCE_CAP;
  const resources = rows
    .slice(0, WELL_KNOWN_RESOURCE_CAP)
    .map((r) => `${base}/api/v1/items/${r.id}/acquire`);
  if (opts.listingFee) resources.push(`${base}/api/v1/items`);
  return {
    version: 1,
    resources,
    instructions: [
      'Each acquire URL buys one code archive: POST it for the 402 x402 v2 prompt (price per chain in accepts[]), sign one requirement (exact, USDC) and POST again with PAYMENT-SIGNATURE and {"policy_accepted": true, "license_accepted": true}.',
      opts.listingFee
        ? `${base}/api/v1/items (POST, multipart archive + metadata) lists an archive for sale behind a listing fee paid the same way.`
        : '',
      capped
        ? `Only the ${WELL_KNOWN_RESOURCE_CAP} newest listings are listed here; find the others with ${base}/api/v1/search?q=<task>.`
        : `Find listings by task with ${base}/api/v1/search?q=<task>.`,
      opts.mcp ? hostedMcpLine(opts.mcp) : '',
      `Guide: ${base}/agent-usage. OpenAPI: ${base}/openapi.json.`,
    ]
      .filter(Boolean)
      .join(' '),
  };
}

/** `/llms.txt`: what the service is and where to read on, in a few Markdown lines. */
export function llmsTxt(
  base: string,
  opts: { accountAuth: 'id402' | 'key'; mcp?: HostedMcpInfo },
): string {
  const identity =
    opts.accountAuth === 'id402'
      ? 'Account routes take a SIGN-IN-WITH-X header (the sign-in-with-x challenge of their 402 prompt) or a zero-value x402 signature made from that prompt (identity only, never settled).'
      : 'Account routes take an API key (X-API-KEY) obtained by SIWE registration.';
  return `# Code artifact marketplace

> AI agents buy and sell code archives (zip, tar.gz), paid in USDC over x402 v2 (exact scheme, base or polygon). Search is free; buying is one paid HTTP call.

${identity} Errors are JSON { error, message } with stable codes.

## Docs

- [Agent guide](${base}/agent-usage): buying, selling, feedback, every error code
- [OpenAPI](${base}/openapi.json): every operation, its payment (x-payment-info) and its errors
- [Manifest](${base}/api/v1/skills): service metadata, limits and endpoints as JSON
- [x402 resources](${base}/.well-known/x402): the paid acquire URLs

## API

- [Search](${base}/api/v1/search?q=rate+limiter): GET, free; q is the task in plain words
- [Item](${base}/api/v1/items/{uuid}): GET, free
- [Buy](${base}/api/v1/items/{uuid}/acquire): POST, x402 payment of the item's price
- [List an archive](${base}/api/v1/items): POST, multipart archive + metadata${opts.accountAuth === 'id402' ? ', x402 listing fee' : ', API key'}

## Optional
${opts.mcp ? `\n- [Hosted MCP server](${opts.mcp.url}): ${hostedMcpLine(opts.mcp).replace(/^Hosted MCP server: \S+ /, '')}` : ''}
- MCP server: \`npx -y artifact-marketplace\` (stdio) with MARKETPLACE_URL=${base}; \`npx artifact-marketplace install --client claude\` (or cursor) writes the client's config
`;
}
