import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { seedListing } from '../helpers/catalog.js';

/**
 * The MCP server as an operator runs it: `npx tsx mcp/main.ts` spawned over stdio by the official
 * client, pointed at the service on a real socket. stdout must carry only the protocol.
 */
let t: TestContext;
let base: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({ ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-e2e-')), PUBLIC_BASE_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(() => t?.close());

it('npx tsx mcp/main.ts answers search_items over stdio', async () => {
  const id = await seedListing(t.runtime.deps.sql, t.runtime.deps.embedder, {
    title: 'Platypus cron scheduler',
    description: 'Cron expression parser and job scheduler',
    techStack: 'typescript',
  });
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['tsx', 'mcp/main.ts'],
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...getDefaultEnvironment(), MARKETPLACE_URL: base },
    stderr: 'pipe',
  });
  let logs = '';
  transport.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = (await client.callTool({ name: 'search_items', arguments: { q: 'platypus cron scheduler' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    const items = (r.structuredContent as { items: { id: string }[] }).items;
    expect(items[0]?.id).toBe(id);
    expect(logs).toContain('mcp server starting');
  } finally {
    await client.close();
  }
});
