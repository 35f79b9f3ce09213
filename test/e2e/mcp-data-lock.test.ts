import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ensureBuilt, MCP_ENTRY, ROOT } from '../helpers/build.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

/**
 * Two MCP server processes on one MCP_DATA_DIR (s40): the second waits for the first's lock, then
 * refuses to start, naming the directory; a holder killed outright (SIGKILL: no exit hook) leaves
 * a lock that goes stale, and the next process takes it over instead of being blocked forever.
 * The built entry, spawned as an agent's host runs it. Nothing here talks to a marketplace.
 * No database either: on the Postgres tier this file would run the very same code again, so it
 * runs in `npm test` alone (docs/testing.md, "CI's time").
 */
/**
 * Each test's bound is a safety net against a hang: the second process waits out the lock (13 s),
 * the next one a stale lock (10 s), each after a start of its own; on two cores at load 15-23
 * that came near 60 s. Nothing here asserts how fast a process starts or takes the lock.
 * (vi.setConfig lasts for this file only.)
 */
vi.setConfig({ testTimeout: 300_000 });

const dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-lock-'));
const env = {
  ...getDefaultEnvironment(),
  MARKETPLACE_URL: 'http://127.0.0.1:9',
  MCP_DATA_DIR: dataDir,
};
const clients: Client[] = [];

beforeAll(() => (ON_POSTGRES ? undefined : ensureBuilt()), 300_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
});

/** The entry over stdio, connected; its transport (for the child's pid). */
async function connected() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_ENTRY],
    cwd: ROOT,
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'lock-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return { client, transport };
}

it.skipIf(ON_POSTGRES)(
  'a second process on the same data directory refuses to start, naming it',
  async () => {
    const first = await connected();
    const second = spawn(process.execPath, [MCP_ENTRY], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let logs = '';
    second.stderr.on('data', (c: Buffer) => (logs += c.toString()));
    const [code] = (await once(second, 'exit')) as [number];
    expect(code).toBe(1);
    expect(logs).toContain(`Another MCP server is running on the data directory ${dataDir}`);
    expect(logs).not.toContain('mcp server starting');
    // the first one is untouched and still serves
    expect((await first.client.listTools()).tools.length).toBeGreaterThan(0);
    await first.client.close();
    // a clean exit removes the lock
    expect(existsSync(path.join(dataDir, 'mcp.lock'))).toBe(false);
  },
);

it.skipIf(ON_POSTGRES)(
  'a holder killed outright does not block forever: the next process takes its stale lock',
  async () => {
    const holder = await connected();
    process.kill(holder.transport.pid!, 'SIGKILL');
    // the lock stays behind (no exit hook ran)
    expect(existsSync(path.join(dataDir, 'mcp.lock'))).toBe(true);
    const next = await connected();
    expect((await next.client.listTools()).tools.length).toBeGreaterThan(0);
  },
);
