import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { ensureBuilt } from '../helpers/build.js';
import { spawnBuiltMcp, textOf } from '../helpers/mcp.js';
import { uniqueUsername } from '../helpers/revision-a.js';

/**
 * The built entry (`node dist/mcp/main.js`) over stdio against a Revision A marketplace: the
 * wallet registers on its first signed call (set_username's name), the key and that name are kept
 * in the data folder, and a restarted server still answers get_username from them.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  [t] = await Promise.all([startListeningTestApp({ CONTRACT_REVISION: 'A' }), ensureBuilt()]);
}, 300_000);
afterAll(() => t?.close());

async function spawnMcp(env: Record<string, string>) {
  const client = await spawnBuiltMcp(env, 'reva-stdio');
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
    return r.structuredContent as Record<string, unknown>;
  };
  return { client, ok };
}

it('registers with set_username on the first signed call, keeps key and name, and answers the same after a restart', async () => {
  const key = generatePrivateKey();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-reva-stdio-'));
  const env = {
    MARKETPLACE_URL: t.base,
    MCP_DATA_DIR: dataDir,
    MCP_WALLET_PRIVATE_KEY: key,
    MCP_COUNTRY: 'DE',
  };
  const name = uniqueUsername('stdio-a');
  const first = await spawnMcp(env);
  try {
    expect(await first.ok('set_username', { username: name })).toEqual({
      username: name,
      changeable: false,
    });
    expect(await first.ok('get_sales_chains')).toEqual({ sales_chains: ['base', 'polygon'] });
    const payouts = await first.ok('get_payouts');
    expect(payouts.payouts).toHaveLength(2);
    expect(payouts).not.toHaveProperty('payout_history');
  } finally {
    await first.client.close();
  }
  const file = path.join(dataDir, 'api-keys.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const stored = Object.values(JSON.parse(readFileSync(file, 'utf8')) as object);
  expect(stored).toEqual([{ key: expect.stringMatching(/^mk_/), username: name }]);
  expect(readFileSync(file, 'utf8')).not.toContain(key.slice(2));

  const second = await spawnMcp(env);
  try {
    expect(await second.ok('get_username')).toEqual({ username: name, changeable: false });
    const [agent] = await t.runtime.deps.sql<{ username: string }[]>`
      select username from agents where address = ${privateKeyToAccount(key).address.toLowerCase()}`;
    expect(agent!.username).toBe(name);
  } finally {
    await second.client.close();
  }
});
