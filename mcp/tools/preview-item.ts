import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ItemPreviewSchema } from '../../src/wire/previews.js';
import type { McpDeps } from '../deps.js';
import { apiFailure, success } from './results.js';

export function registerPreviewItem(
  server: McpServer,
  deps: Pick<McpDeps, 'baseUrl' | 'catalog'>,
): void {
  server.registerTool(
    'preview_item',
    {
      title: 'Preview listing',
      description:
        "Looks inside an active listing's archive before buying, as the marketplace's scan saw it: the file tree " +
        '(paths and sizes, at most 500 entries with the total), languages by lines of code, total files and lines, the ' +
        "licence as an SPDX id with the file it came from ('none' when there is none), the dependency manifests and the " +
        'packages they declare, whether tests are present and with which framework, and the first lines of the README ' +
        '(at most 40 lines / 4 KB, HTML-escaped, secrets redacted). Never code bodies. Use it between search_items and ' +
        'quote_item to judge whether a listing fits. Free: no wallet, no payment.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
      },
      outputSchema: ItemPreviewSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id }) => {
      try {
        return success(await deps.catalog.preview(item_id));
      } catch (err) {
        return apiFailure(err, 'preview_item', deps.baseUrl);
      }
    },
  );
}
