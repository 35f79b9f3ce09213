import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { USERNAME_LIMITS } from '../../src/wire/accounts.js';
import { accountFaceOf } from '../account.js';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { UsernameResultSchema, usernameResult } from './get-username.js';
import { apiFailure, failure, success } from './results.js';
import { NO_ACCOUNT } from './wallet-tool.js';

const HINTS = {
  agent_not_found: NO_ACCOUNT,
  invalid_username: 'Use 6-32 letters, digits, _ or -, starting and ending with a letter or digit.',
  username_taken: 'Someone already uses this name (case does not matter); pick another.',
  username_already_changed:
    'This account already chose its username; it is permanent and cannot be changed again.',
};

export function registerSetUsername(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'set_username',
    {
      title: 'Set my username (permanent)',
      description:
        "Replaces this wallet's generated username with a chosen one, shown publicly next to its listings. PERMANENT: it can be " +
        'changed only once, ever; confirm the exact name with the user before calling. On a Revision A (API-key) marketplace the ' +
        "name is fixed when the wallet registers: this call registers with it if it is this server's first signed call, and is " +
        'refused otherwise (nothing changes). Free: a zero-value identity signature (or the API key), never settled. ' +
        'Returns { username, username_type?, changeable: false }.',
      inputSchema: {
        username: z
          .string()
          .min(USERNAME_LIMITS.min)
          .max(USERNAME_LIMITS.max)
          .describe(
            `${USERNAME_LIMITS.min}-${USERNAME_LIMITS.max} characters: letters, digits, _ and -, starting and ending with a letter or digit; unique without regard to case`,
          ),
      },
      outputSchema: UsernameResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ username }) => {
      if (!deps.wallet) return failure(`set_username failed: ${NO_WALLET}`);
      try {
        // Revision A: a first signed call registers the wallet, under this name
        const wallet = await deps.wallet({ username });
        const face = accountFaceOf(wallet);
        const set = await face.setUsername(wallet, username);
        if ('refused' in set) return failure(set.refused);
        return success(usernameResult(set, face));
      } catch (err) {
        return apiFailure(err, 'set_username', deps.baseUrl, HINTS);
      }
    },
  );
}
