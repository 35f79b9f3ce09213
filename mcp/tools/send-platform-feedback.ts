import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  FEEDBACK_LIMITS,
  PlatformFeedbackCreatedSchema,
} from '../../src/domain/feedback/schemas.js';
import type { McpDeps } from '../server.js';
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
        'up to 5 per rolling 24 hours; it never creates an account. Free: a zero-value identity signature, never settled. ' +
        'Returns { feedback_id }.',
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
      outputSchema: PlatformFeedbackCreatedSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (wallet, body) => wallet.platformFeedback(body),
    {
      rate_limited:
        'The daily limit of platform messages for this wallet is reached; try again tomorrow.',
      invalid_contact: 'contact must be one line of at most 120 characters, e.g. "email: a@b.c".',
    },
  );
}
