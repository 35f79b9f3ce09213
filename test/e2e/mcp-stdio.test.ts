import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { seedListing } from '../helpers/catalog.js';

/**
 * The MCP server as an operator runs it: `npx tsx mcp/main.ts` spawned over stdio by the official
 * client, pointed at the service on a real socket (stdout must carry only the protocol), and the
 * same entry with `--http`.
 */
let t: ListeningTestContext;
let base: string;
const root = path.resolve(import.meta.dirname, '../..');

beforeAll(async () => {
  t = await startListeningTestApp();
  base = t.base;
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
    cwd: root,
    env: { ...getDefaultEnvironment(), MARKETPLACE_URL: base },
    stderr: 'pipe',
  });
  let logs = '';
  transport.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = (await client.callTool({
      name: 'search_items',
      arguments: { q: 'platypus cron scheduler' },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    const items = (r.structuredContent as { items: { id: string }[] }).items;
    expect(items[0]?.id).toBe(id);
    expect(logs).toContain('mcp server starting');
  } finally {
    await client.close();
  }
});

it('npx tsx mcp/main.ts --http serves stateless Streamable HTTP on loopback only', async () => {
  const port = await freePort();
  const child = spawn('npx', ['tsx', 'mcp/main.ts', '--http'], {
    cwd: root,
    env: { ...getDefaultEnvironment(), MARKETPLACE_URL: base, MCP_HTTP_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  try {
    let logs = '';
    child.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    await Promise.race([
      (async () => {
        while (!logs.includes('mcp streamable http listening')) await once(child.stderr, 'data');
      })(),
      once(child, 'exit').then(() => Promise.reject(new Error(`mcp exited: ${logs}`))),
    ]);
    const url = `http://127.0.0.1:${port}/mcp`;
    const client = new Client({ name: 'mcp-e2e-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = (await client.callTool({
      name: 'get_item',
      arguments: { item_id: '00000000-0000-4000-8000-000000000000' },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('item_not_found');
    await client.close();
    // fetch() drops a custom Host header; node:http sends it as a rebinding page would
    const rebound = request(url, {
      method: 'POST',
      headers: { host: 'attacker.example', 'content-type': 'application/json' },
    });
    rebound.end('{}');
    const [res] = (await once(rebound, 'response')) as [IncomingMessage];
    res.resume();
    expect(res.statusCode).toBe(403);
  } finally {
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
});
