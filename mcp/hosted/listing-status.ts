import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { PublicStatusSchema } from '../../src/wire/items.js';
import { SellerItemStatusSchema } from '../../src/wire/listings.js';
import { MEANING, SCANNING } from '../tools/get-listing-status.js';
import { apiFailure, failure, success } from '../tools/results.js';
import {
  MarketplaceError,
  orPaymentRequired,
  paidCall,
  proofOf,
  type HostedDeps,
} from './paid-call.js';

/** The local tool's bound on waiting (mcp/tools/get-listing-status.ts). */
const MAX_WAIT_SECONDS = 120;
const POLL_MS = 1000;

type Findings = z.infer<typeof SellerItemStatusSchema>['findings'];

/** The status in words, with what to fix when the scan refused it (never a secret value). */
function meaningOf(status: string, findings: Findings): string {
  const fix = findings?.length
    ? `; fix: ${findings
        .slice(0, 10)
        .map((f) => `${f.rule}${f.file ? ` in ${f.file}` : ''}${f.line ? ` line ${f.line}` : ''}`)
        .join('; ')}${findings.length > 10 ? ` (+${findings.length - 10} more)` : ''}`
    : '';
  return `${MEANING[status] ?? status}${fix}`;
}

/**
 * The hosted get_listing_status. Free: the public status route, polled (once a second, at most
 * `wait_seconds`, bounded like the local tool) until the listing is live. A listing the public
 * route does not show (waiting for or in the scan, rejected, deleted, or no such id: Revision B
 * shows only active ones) is the owner's business: with an identity proof in `_meta` (zero-value
 * `x402/payment` or `sign-in-with-x`, single use, so read once after the wait) the owner's view
 * with the scan state, reason and findings; without one, the owner route's PaymentRequired.
 */
export function registerHostedListingStatus(server: McpServer, deps: HostedDeps): void {
  server.registerTool(
    'get_listing_status',
    {
      title: 'Get listing status',
      description:
        "Reads a listing's status. Free for a live listing: { item_id, status: active, reason, scan_finished, meaning, view: " +
        '"public" }; with wait_seconds it waits (polling the public status, up to 120 s) until the listing goes live, e.g. ' +
        'after list_item. The public status shows only live listings: for one still waiting for or in the scan, rejected ' +
        '(reason safety_checks_failed, insufficient_complexity, duplicate_content or processing_error, with findings: ' +
        '[{ rule, kind, file, line }] saying what to fix) or deleted, its owner proves the wallet: called without proof it ' +
        'then answers the x402 MCP PaymentRequired of the owner view (zero-value, with a sign-in-with-x challenge); call ' +
        'again with a zero-value PaymentPayload in params._meta["x402/payment"] or a sign-in-with-x proof in ' +
        'params._meta["sign-in-with-x"] (single use; never settled) for { item_id, status, reason, findings?, ' +
        'scan_finished, meaning, view: "owner" }.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by list_item or search_items'),
        wait_seconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .optional()
          .describe(
            `Wait up to this many seconds (0..${MAX_WAIT_SECONDS}, default 0) for the listing to go live`,
          ),
      },
      outputSchema: orPaymentRequired(
        z.looseObject({
          item_id: z.string(),
          status: z.string(),
          reason: z.string(),
          scan_finished: z.boolean(),
          meaning: z.string(),
          view: z.enum(['public', 'owner']),
        }),
      ),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (async (
      { item_id, wait_seconds }: { item_id: string; wait_seconds?: number },
      ctx: { _meta?: Record<string, unknown>; signal?: AbortSignal },
    ) => {
      try {
        const until = Date.now() + (wait_seconds ?? 0) * 1000;
        for (;;) {
          const res = await deps.fetch(`${deps.baseUrl}/api/v1/items/${item_id}/status`);
          if (res.ok) {
            const s = PublicStatusSchema.parse(await res.json());
            return success({
              item_id,
              status: s.status,
              reason: s.reason,
              created_at: s.created_at,
              scan_finished: !SCANNING.has(s.status),
              meaning: meaningOf(s.status, undefined),
              view: 'public',
            });
          }
          if (res.status !== 404) {
            const body = (await res.json().catch(() => ({}))) as { error?: string };
            throw new MarketplaceError(res.status, body.error ?? 'http_error', body);
          }
          await res.body?.cancel();
          if (ctx.signal?.aborted)
            return failure('get_listing_status cancelled: nothing was read.');
          if (Date.now() >= until) break;
          await new Promise((r) => setTimeout(r, Math.min(POLL_MS, until - Date.now())));
        }
        const owner = await paidCall(
          deps,
          `/api/v1/seller/items/${item_id}/status`,
          { method: 'GET' },
          proofOf(ctx._meta),
          SellerItemStatusSchema,
        );
        if (owner.kind === 'payment_required') return owner.result;
        const s = owner.body;
        return success({
          item_id,
          ...s,
          scan_finished: !SCANNING.has(s.status),
          meaning: meaningOf(s.status, s.findings),
          view: 'owner',
        });
      } catch (err) {
        return apiFailure(err, 'get_listing_status', deps.baseUrl, {
          item_not_found:
            'No listing with this id is live, and none belongs to the proving wallet. Use an item_id from list_item or list_my_items.',
          agent_not_found:
            'This wallet has never listed or bought anything here, so it owns no listings. List something with list_item first.',
        });
      }
    }) as never,
  );
}
