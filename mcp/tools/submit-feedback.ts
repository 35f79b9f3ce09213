import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FEEDBACK_LIMITS, ItemFeedbackCreatedSchema } from '../../src/wire/feedback.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerSubmitFeedback(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'submit_feedback',
    {
      title: 'Rate a purchase',
      description:
        'Rates (0..10) and/or reviews an item this wallet bought, once per item, within 30 days of the purchase (default). A rating ' +
        'alone counts at once; a review is moderated before the seller sees it, and review text is never shown publicly. Use it when ' +
        'the user has judged a bought component. Free: a zero-value identity signature, never settled. Returns { feedback_id, moderation_status }.',
      inputSchema: {
        item_id: z.uuid().describe('The bought listing (a uuid), as in list_my_orders'),
        rating: z
          .number()
          .int()
          .min(FEEDBACK_LIMITS.rating.min)
          .max(FEEDBACK_LIMITS.rating.max)
          .optional()
          .describe('Whole number 0..10'),
        text: z
          .string()
          .min(1)
          .max(FEEDBACK_LIMITS.text)
          .optional()
          .describe('Review for the seller, 1..1000 characters; give rating, text or both'),
      },
      outputSchema: ItemFeedbackCreatedSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (wallet, { item_id, ...body }) => wallet.submitFeedback(item_id, body),
    {
      empty_feedback: 'Give a rating (0..10), a text, or both.',
      not_buyer:
        'This wallet has no completed purchase of this item; only buyers can rate it. Check list_my_orders.',
      feedback_already_submitted: 'This wallet already rated this item; feedback is one per item.',
      feedback_window_expired:
        'The purchase is older than the feedback window (30 days by default).',
    },
  );
}
