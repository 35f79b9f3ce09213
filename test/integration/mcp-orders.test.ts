import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  CallToolResultSchema,
  ProgressNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectMcp, textOf } from '../helpers/mcp.js';

/**
 * Tools around an order (issue 28): the archive downloaded again (checked, saved, a
 * resource_link, progress notifications), resource_links from acquire_item, the invoice, and the market://items/{id} template.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp();
});
afterAll(() => t?.close());

it('downloads an order again with progress, reads its invoice, and serves market://items/{id}', async () => {
  const item = await createSaleItem(t.runtime.deps, {
    priceUsdc: 0.5,
    bytes: zipOf(uniqueProject()),
    title: 'Heron cache',
  });
  const c = await connectMcp(t.base);
  try {
    const bought = await c.call('acquire_item', {
      item_id: item.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(bought.isError, textOf(bought)).toBeFalsy();
    const { order_id, archive } = bought.structuredContent as {
      order_id: string;
      archive: { path: string };
    };
    expect(bought.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `file://${archive.path}` }),
    );

    const invoice = await c.call('get_invoice', { order_id });
    expect(invoice.isError, textOf(invoice)).toBeFalsy();
    expect(invoice.structuredContent).toMatchObject({
      order_id,
      status: 'paid',
      item: { id: item.itemId, title: 'Heron cache', sha256: item.sha256 },
      amount: { currency: 'USDC', total_raw: '500000' },
      buyer: { address: c.account.address.toLowerCase() },
    });

    const steps: string[] = [];
    c.client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      steps.push(String(n.params.message));
    });
    const again = (await c.client.request(
      {
        method: 'tools/call',
        params: { name: 'download_order', arguments: { order_id }, _meta: { progressToken: 7 } },
      },
      CallToolResultSchema,
    )) as CallToolResult;
    expect(again.isError, textOf(again)).toBeFalsy();
    const saved = again.structuredContent as { path: string; sha256: string };
    expect(saved.sha256).toBe(item.sha256);
    expect(createHash('sha256').update(readFileSync(saved.path)).digest('hex')).toBe(item.sha256);
    expect(again.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `file://${saved.path}` }),
    );
    expect(steps).toEqual([
      'fetching fresh links',
      'downloading the archive',
      "checking it against the marketplace's digest and saving it",
    ]);

    const res = await c.client.readResource({ uri: `market://items/${item.itemId}` });
    expect(JSON.parse((res.contents[0] as { text: string }).text)).toMatchObject({
      id: item.itemId,
      metadata: { title: 'Heron cache' },
    });
  } finally {
    await c.close();
  }
});

/**
 * Found by the s48 sweep: a malformed or unknown id in `market://items/{id}` was answered as a
 * JSON-RPC internal error (-32603, "400 invalid_item_id"), the shape of a server fault; it is the
 * caller's mistake, invalid params (-32602), as the SDK answers an unknown resource URI. Both doors:
 * the local server (stdio's McpServer) and the hosted `/mcp`.
 */
it('market://items/{id} with a bad or unknown id is invalid params, not an internal error', async () => {
  const local = await connectMcp(t.base);
  const hosted = new Client({ name: 'resource-errors', version: '1' });
  await hosted.connect(new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`)));
  try {
    for (const client of [local.client, hosted]) {
      for (const [id, code] of [
        ['not-a-uuid', 'invalid_item_id'],
        ['00000000-0000-4000-8000-000000000000', 'item_not_found'],
        ['a'.repeat(5000), 'invalid_'],
      ] as const) {
        const err = await client.readResource({ uri: `market://items/${id}` }).then(
          () => undefined,
          (e: { code?: number; message?: string }) => e,
        );
        expect(err?.code, `${id.slice(0, 20)}: ${err?.message}`).toBe(-32602);
        expect(err?.message).toContain(code);
      }
    }
  } finally {
    await local.close();
    await hosted.close();
  }
});
