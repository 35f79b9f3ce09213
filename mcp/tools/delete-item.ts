import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { apiFailure, failure, success } from './results.js';

export function registerDeleteItem(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'delete_item',
    {
      title: 'Delete my listing',
      description:
        "Deletes one of this wallet's listings at once: it leaves search, item detail and purchase for good (buyers who bought it keep " +
        'access). Irreversible through the API; listing the same code again needs a new list_item and fee. Use it only when the user ' +
        'asks to withdraw a listing. Free: a zero-value identity signature, never settled. Idempotent: deleting again answers the same. ' +
        'Returns { ok: true, item_id }.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid) of an own listing, from list_my_items'),
      },
      outputSchema: z.object({ ok: z.literal(true), item_id: z.string() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id }) => {
      if (!deps.wallet) return failure(`delete_item failed: ${NO_WALLET}`);
      try {
        await (await deps.wallet()).deleteItem(item_id);
        return success({ ok: true, item_id });
      } catch (err) {
        return apiFailure(err, 'delete_item', deps.baseUrl, {
          item_not_found:
            "No listing with this id belongs to this server's wallet (nothing was deleted). Check the id with list_my_items.",
          agent_not_found:
            'This wallet has never listed anything here, so it owns no listings to delete.',
        });
      }
    },
  );
}
