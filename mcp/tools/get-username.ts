import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { UsernameResponseSchema } from '../../src/wire/accounts.js';
import type { AccountUsername } from '../../src/client/index.js';
import { accountFaceOf } from '../account.js';
import type { AccountFace } from '../account-face.js';
import type { McpDeps } from '../deps.js';
import { registerWalletTool } from './wallet-tool.js';

/** What get_username and set_username return, in both contract revisions. */
export const UsernameResultSchema = UsernameResponseSchema.extend({
  username_type: UsernameResponseSchema.shape.username_type
    .optional()
    .describe(
      'automatic (generated, set_username may replace it once) or user_set (chosen, permanent); absent on a Revision A marketplace',
    ),
  changeable: z
    .boolean()
    .describe('true: set_username can still replace it (once); false: it is permanent'),
});

/** The username with whether set_username can still change it (never in Revision A). */
export const usernameResult = (u: AccountUsername, face: AccountFace) => ({
  ...u,
  changeable: face.changeable(u),
});

export function registerGetUsername(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'get_username',
    {
      title: 'Get my username',
      description:
        "Reads this wallet's public username (shown next to its listings as seller_username) and whether it can still be changed: " +
        'a generated one (automatic) can be replaced once with set_username, a chosen one (user_set) is permanent. On a Revision A ' +
        '(API-key) marketplace the name was fixed at registration and is never changeable; if this server did not register it, it is ' +
        'read from one of your active listings. Free: a zero-value identity signature (or the API key), never settled. ' +
        'Returns { username, username_type?, changeable }.',
      inputSchema: {},
      outputSchema: UsernameResultSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (wallet) => usernameResult(await wallet.getUsername(), accountFaceOf(wallet)),
    {
      username_unknown:
        'This marketplace (Revision A) has no route that reads a username back. It shows as seller_username on your active ' +
        'listings: once one is active (list_item, get_listing_status), call again. Nothing was changed.',
    },
  );
}
