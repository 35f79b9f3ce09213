import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { USERNAME_LIMITS, UsernameResponseSchema } from '../../src/domain/accounts/schemas.js';
import type { McpDeps } from '../server.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerSetUsername(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'set_username',
    {
      title: 'Set my username (permanent)',
      description:
        "Replaces this wallet's generated username with a chosen one, shown publicly next to its listings. PERMANENT: it can be " +
        'changed only once, ever; confirm the exact name with the user before calling. Free: a zero-value identity signature, never settled. ' +
        'Returns { username, username_type: "user_set" }.',
      inputSchema: {
        username: z
          .string()
          .min(USERNAME_LIMITS.min)
          .max(USERNAME_LIMITS.max)
          .describe(
            `${USERNAME_LIMITS.min}-${USERNAME_LIMITS.max} characters: letters, digits, _ and -, starting and ending with a letter or digit; unique without regard to case`,
          ),
      },
      outputSchema: UsernameResponseSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (wallet, { username }) => wallet.setUsername(username),
    {
      invalid_username:
        'Use 6-32 letters, digits, _ or -, starting and ending with a letter or digit.',
      username_taken: 'Someone already uses this name (case does not matter); pick another.',
      username_already_changed:
        'This account already chose its username; it is permanent and cannot be changed again.',
    },
  );
}
