import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { INBOX_LIMITS, InboxResponseSchema } from '../../src/wire/feedback.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerReadInbox(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'read_inbox',
    {
      title: 'Read my feedback inbox',
      description:
        "Reads approved buyer feedback (ratings and moderated reviews) on this wallet's listings, oldest first. By default it only " +
        'peeks (nothing is marked read): acknowledge each row with ack_feedback once handled; peek: false marks the returned rows read ' +
        'as they are delivered. Free: a zero-value identity signature, never settled. ' +
        'Returns { items: [{ feedback_id, item_id, rating, text, created_at, was_unread }] }.',
      inputSchema: {
        peek: z
          .boolean()
          .optional()
          .describe('Default true: read without marking; false marks the returned rows read'),
        include_read: z
          .boolean()
          .optional()
          .describe('true: also rows already read (default false)'),
        since: z.iso
          .datetime({ offset: true })
          .optional()
          .describe('ISO-8601; only feedback at or after it'),
        until: z.iso
          .datetime({ offset: true })
          .optional()
          .describe('ISO-8601; only feedback before it'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(INBOX_LIMITS.max)
          .optional()
          .describe(`Rows, 1..${INBOX_LIMITS.max} (default ${INBOX_LIMITS.default})`),
      },
      outputSchema: InboxResponseSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (wallet, { peek, ...query }) => wallet.inbox({ ...query, peek: peek ?? true }),
  );
}
