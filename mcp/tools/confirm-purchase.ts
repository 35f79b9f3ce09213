import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Approvals } from '../approvals.js';
import { failure, success } from './results.js';

/**
 * The approval path's second half (mcp/approvals.ts): the model passes on the one-time code the
 * human read where only the human sees it; the same acquire_item call then goes through once.
 */
export function registerConfirmPurchase(server: McpServer, approvals: Approvals): void {
  server.registerTool(
    'confirm_purchase',
    {
      title: 'Confirm a purchase with the human’s code',
      description:
        'Only after acquire_item answered that a purchase waits for approval (this MCP client cannot ask the human): pass the ' +
        'approval_id from that answer and the one-time code the user read to you from the approval page or the server log. ' +
        'Never guess or invent the code; five wrong codes cancel the approval. On success call acquire_item again with the same ' +
        'arguments within 10 minutes. Signs and pays nothing by itself.',
      inputSchema: {
        approval_id: z.uuid().describe('From the acquire_item answer'),
        code: z.string().trim().min(4).max(16).describe('The code the user read out'),
      },
      outputSchema: z.object({
        approved: z.literal(true),
        approval_id: z.string(),
        usdc: z.number().describe('The approved price'),
        item_id: z.string(),
        note: z.string(),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ approval_id, code }) => {
      const r = approvals.confirm(approval_id, code);
      if (r === 'unknown')
        return failure(
          'confirm_purchase failed: no pending approval has this id (expired after 10 minutes, used, or cancelled). Call acquire_item again for a new one.',
        );
      if (r === 'wrong_code')
        return failure(
          'confirm_purchase failed: the code does not match. Ask the user to read it again; do not guess (five wrong codes cancel the approval).',
        );
      return success({
        approved: true,
        approval_id,
        usdc: r.usdc,
        item_id: r.ref,
        note: 'Approved once: call acquire_item again with the same arguments within 10 minutes.',
      });
    },
  );
}
