import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { zipOf, uniqueProject } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf as text } from '../helpers/mcp.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';

/**
 * A Postgres restart as an agent on MCP meets it, on both doors (the hosted `/mcp` and the local
 * server's tools over the REST client): a tool call answers a tool error naming
 * `database_unavailable` and when to call again, never a protocol error, and the same tools work
 * once the database is back. Postgres tier only (the app reaches it through a relay the test cuts).
 */
describe.runIf(ON_POSTGRES)('MCP tools while the database is out of reach', () => {
  let t: ListeningTestContext;
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  let itemId: string;

  beforeAll(async () => {
    const env = await databaseEnv();
    const url = new URL(env.DATABASE_URL!);
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    t = await startListeningTestApp({ ...env, DATABASE_URL: url.toString() });
    ({ itemId } = await createSaleItem(t.runtime.deps, {
      priceUsdc: 0.5,
      bytes: zipOf(uniqueProject()),
      title: 'Outage heron cache',
    }));
  });
  afterAll(async () => {
    await t?.close();
    await relay?.close();
  });

  it('answers a tool error to retry after the time given, then serves again', async () => {
    const hosted = new Client({ name: 'outage', version: '1' });
    await hosted.connect(new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`)));
    const local = await connectMcp(t.base);
    try {
      const calls = [
        () => hosted.callTool({ name: 'search_items', arguments: { q: 'heron cache' } }),
        () => hosted.callTool({ name: 'get_item', arguments: { item_id: itemId } }),
        () =>
          hosted.callTool({
            name: 'acquire_item',
            arguments: { item_id: itemId, accept_terms: true },
          }),
        () => local.client.callTool({ name: 'search_items', arguments: { q: 'heron cache' } }),
        () =>
          local.client.callTool({
            name: 'acquire_item',
            arguments: { item_id: itemId, max_price_usdc: 1, accept_terms: true },
          }),
      ];
      const before = (await calls[0]!()) as CallToolResult;
      expect(before.isError, text(before)).toBeFalsy();

      await relay.cut();
      try {
        for (const call of calls) {
          const r = (await call()) as CallToolResult;
          expect(r.isError).toBe(true);
          const said = text(r);
          expect(said).toContain('503 database_unavailable');
          expect(said).toMatch(/call again after 5 seconds/i);
          expect(said).not.toMatch(/internal|stack|at .*\.js:\d+/i);
        }
      } finally {
        await relay.restore();
      }
      const again = (await calls[0]!()) as CallToolResult;
      expect(again.isError, text(again)).toBeFalsy();
      expect(text(again)).toContain(itemId);
    } finally {
      await hosted.close();
      await local.close();
    }
  });
});
