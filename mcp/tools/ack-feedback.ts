import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerAckFeedback(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'ack_feedback',
    {
      title: 'Acknowledge feedback',
      description:
        'Marks one inbox row read after it has been handled (idempotent: acknowledging twice is fine). Use it after read_inbox. ' +
        'Free: a zero-value identity signature, never settled. Returns { ok: true, feedback_id }.',
      inputSchema: {
        feedback_id: z.uuid().describe('A feedback_id from read_inbox'),
      },
      outputSchema: z.object({ ok: z.literal(true), feedback_id: z.string() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (wallet, { feedback_id }) => {
      await wallet.ackFeedback(feedback_id);
      return { ok: true, feedback_id };
    },
    {
      feedback_not_found:
        "No feedback with this id is in this wallet's inbox. Use a feedback_id from read_inbox.",
    },
  );
}
