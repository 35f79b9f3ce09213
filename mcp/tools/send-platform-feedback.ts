import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FEEDBACK_LIMITS, PlatformFeedbackCreatedSchema } from '../../src/wire/feedback.js';
import { accountFaceOf } from '../account.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerSendPlatformFeedback(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'send_platform_feedback',
    {
      title: 'Send feedback to the marketplace',
      description:
        'Sends a message to the marketplace operators (a bug, a missing feature, a problem with a listing). Any wallet may send it, ' +
        'up to 5 per rolling 24 hours; it never creates an account. A Revision A (API-key) marketplace takes the text only: a ' +
        'contact is then not sent, and the result says so. Free: a zero-value identity signature (or the API key), never settled. ' +
        'Returns { feedback_id, note? }.',
      inputSchema: {
        text: z
          .string()
          .min(1)
          .max(FEEDBACK_LIMITS.text)
          .describe('The message, 1..1000 characters'),
        contact: z
          .string()
          .max(FEEDBACK_LIMITS.contact)
          .regex(/^[^\r\n]*$/)
          .optional()
          .describe(
            'Optional, one line, at most 120 characters, prefixed with its channel (e.g. "email: a@b.c")',
          ),
      },
      outputSchema: PlatformFeedbackCreatedSchema.extend({
        note: z.string().optional().describe('Present when part of the call was not sent'),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (wallet, body) => ({
      ...(await wallet.platformFeedback(body)),
      ...accountFaceOf(wallet).platformFeedbackNote(body),
    }),
    {
      rate_limited:
        'The daily limit of platform messages for this wallet is reached; try again tomorrow.',
      invalid_contact: 'contact must be one line of at most 120 characters, e.g. "email: a@b.c".',
    },
  );
}
