import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UsernameResponseSchema } from '../../src/domain/accounts/schemas.js';
import type { McpDeps } from '../server.js';
import { registerWalletTool } from './wallet-tool.js';

export function registerGetUsername(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'get_username',
    {
      title: 'Get my username',
      description:
        "Reads this wallet's public username (shown next to its listings as seller_username) and whether it is still the generated " +
        'one (automatic) or was chosen (user_set, permanent). Free: a zero-value identity signature, never settled. ' +
        'Returns { username, username_type }.',
      inputSchema: {},
      outputSchema: UsernameResponseSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (wallet) => wallet.getUsername(),
  );
}
