import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { ensureBuilt, MCP_ENTRY, ROOT as root } from '../helpers/build.js';
import { altered } from '../helpers/forge.js';
import { seedListing } from '../helpers/catalog.js';

/**
 * The MCP server as an operator runs it: the built entry (`node dist/mcp/main.js`, the package's
 * `bin`) spawned over stdio by the official client, pointed at the service on a real socket
 * (stdout must carry only the protocol), and the same entry with `--http`.
 */
let t: ListeningTestContext;
let base: string;
const env = () => ({
  ...getDefaultEnvironment(),
  MARKETPLACE_URL: base,
  MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-e2e-')),
});

beforeAll(async () => {
  [t] = await Promise.all([startListeningTestApp(), ensureBuilt()]);
  base = t.base;
}, 300_000);
afterAll(() => t?.close());

it('writes nothing but JSON-RPC to stdout, and answers initialize at once', async () => {
  const child = spawn(process.execPath, [MCP_ENTRY], {
    cwd: root,
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })}\n`,
  );
  while (!out.includes('\n')) await once(child.stdout, 'data');
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
  while (out.split('\n').length < 3) await once(child.stdout, 'data');
  child.stdin.end();
  await once(child, 'exit');
  const lines = out.split('\n').filter(Boolean);
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  expect(JSON.parse(lines[0]!).result.serverInfo.name).toBe('artifact-marketplace');
});

it('node dist/mcp/main.js answers search_items over stdio', async () => {
  const id = await seedListing(t.runtime.deps.sql, t.runtime.deps.embedder, {
    title: 'Platypus cron scheduler',
    description: 'Cron expression parser and job scheduler',
    techStack: 'typescript',
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_ENTRY],
    cwd: root,
    env: env(),
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

/** The entry with --http; resolves once it listens (or rejects with its logs when it exits). */
async function startHttp(extra: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [MCP_ENTRY, '--http'], {
    cwd: root,
    env: { ...env(), MCP_HTTP_PORT: String(port), ...extra },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  child.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const exited = once(child, 'exit');
  await Promise.race([
    (async () => {
      while (!logs.includes('mcp streamable http listening')) await once(child.stderr, 'data');
    })(),
    exited.then(() => Promise.reject(new Error(`mcp exited: ${logs}`))),
  ]);
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

it('--http beyond loopback refuses to start without MCP_HTTP_TOKEN, and then requires it', async () => {
  const refused = spawn(process.execPath, [MCP_ENTRY, '--http'], {
    cwd: root,
    env: { ...env(), MCP_HTTP_HOST: '0.0.0.0', MCP_HTTP_PORT: String(await freePort()) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  refused.stderr.on('data', (c: Buffer) => (logs += c.toString()));
  const exited = once(refused, 'exit');
  // the one given a token starts meanwhile (each start is mostly loading modules)
  const token = 'a'.repeat(24) + Math.random().toString(36).slice(2).padEnd(16, 'x');
  const starting = startHttp({ MCP_HTTP_HOST: '0.0.0.0', MCP_HTTP_TOKEN: token });
  const [code] = (await exited) as [number];
  const server = await starting;
  try {
    expect(code).toBe(1);
    expect(logs).toContain('MCP_HTTP_TOKEN: required when MCP_HTTP_HOST is not loopback');
    const url = new URL(`http://127.0.0.1:${server.port}/mcp`);
    const anonymous = new Client({ name: 'anon', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(
      /401|Unauthorized/,
    );
    const wrong = new Client({ name: 'wrong', version: '1.0.0' });
    await expect(
      wrong.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${altered(token, -1)}` } },
        }),
      ),
    ).rejects.toThrow(/401|Unauthorized/);
    const client = new Client({ name: 'bearer', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toContain('search_items');
    await client.close();
  } finally {
    await server.stop();
  }
});

it('node dist/mcp/main.js --http serves stateless Streamable HTTP on loopback only', async () => {
  const { port, stop } = await startHttp({});
  try {
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
    await stop();
  }
});
