import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SellerItemStatusSchema } from '../../src/wire/listings.js';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { Cancelled, Progress } from './progress.js';
import { apiFailure, failure, success } from './results.js';

export const SCANNING = new Set(['pending_scan', 'scanning']);
export const MEANING: Record<string, string> = {
  pending_scan: 'waiting for the scan',
  scanning: 'being scanned',
  active: 'live: searchable and purchasable',
  rejected: 'refused by the scan (terminal; the fee is not refunded)',
  deleted: 'deleted (terminal)',
};

export function registerGetListingStatus(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'get_listing_status',
    {
      title: 'Get my listing status',
      description:
        "Reads the owner's view of one of this wallet's listings, scan states included: pending_scan, scanning, active, rejected " +
        '(with the public reason: safety_checks_failed, insufficient_complexity, duplicate_content, processing_error) or deleted. ' +
        'Use it after list_item; with wait_seconds it waits until the scan ends (polling once a second, reporting each ' +
        'status as progress; cancelling the call stops the wait). Free: a zero-value identity signature, never settled. ' +
        'A rejected listing also carries findings: [{ rule, kind, file, line }] saying what to fix (never a secret value). ' +
        'Returns { item_id, status, reason, findings?, scan_finished, meaning }.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by list_item'),
        wait_seconds: z
          .number()
          .int()
          .min(0)
          .max(120)
          .optional()
          .describe('Wait up to this many seconds (0..120, default 0) for the scan to finish'),
      },
      outputSchema: SellerItemStatusSchema.extend({
        item_id: z.string(),
        scan_finished: z.boolean(),
        meaning: z.string(),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id, wait_seconds }, extra) => {
      if (!deps.wallet) return failure(`get_listing_status failed: ${NO_WALLET}`);
      const wait = wait_seconds ?? 0;
      // one poll a second at most: the first read, then up to one per second waited
      const progress = new Progress(extra, wait + 1);
      try {
        const wallet = await deps.wallet();
        const until = Date.now() + wait * 1000;
        let s = await wallet.sellerItemStatus(item_id);
        while (SCANNING.has(s.status) && Date.now() < until) {
          await progress.step(
            `${s.status}: ${MEANING[s.status]}, ${Math.ceil((until - Date.now()) / 1000)} s left to wait`,
          );
          await progress.wait(Math.min(1000, Math.max(until - Date.now(), 0)));
          s = await wallet.sellerItemStatus(item_id);
        }
        const fix = s.findings?.length
          ? `; fix: ${s.findings
              .slice(0, 10)
              .map(
                (f) =>
                  `${f.rule}${f.file ? ` in ${f.file}` : ''}${f.line ? ` line ${f.line}` : ''}`,
              )
              .join('; ')}${s.findings.length > 10 ? ` (+${s.findings.length - 10} more)` : ''}`
          : '';
        return success({
          item_id,
          ...s,
          scan_finished: !SCANNING.has(s.status),
          meaning: `${MEANING[s.status] ?? s.status}${fix}`,
        });
      } catch (err) {
        if (err instanceof Cancelled)
          return failure('get_listing_status cancelled: the wait stopped; nothing changed.');
        return apiFailure(err, 'get_listing_status', deps.baseUrl, {
          item_not_found:
            "No listing with this id belongs to this server's wallet. Use an item_id from list_item or list_my_items.",
          agent_not_found:
            'This wallet has never listed or bought anything here, so it owns no listings. List something with list_item first.',
        });
      }
    },
  );
}
