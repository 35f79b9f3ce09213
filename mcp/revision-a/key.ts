import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MarketplaceError, readJson, type MarketplaceClient } from '../../src/client/index.js';

/**
 * Revision A deployments (API keys): before the first signed call, the MCP server's wallet gets its
 * account's key through SIWE. It registers (MCP_USERNAME, MCP_COUNTRY) when the wallet has no
 * account, or rotates the key when it has one (a key from an earlier run that stopped working, or a
 * wallet provisioned by a keyless purchase). The key is kept in `<MCP_DATA_DIR>/api-keys.json`
 * (mode 0600), per marketplace and wallet, with the username it registered (Revision A has no
 * route that reads it back), and never printed. Revision B deployments need nothing.
 */
export interface KeySetup {
  baseUrl: string;
  dataDir: string;
  username: string | undefined;
  country: string | undefined;
  fetch?: typeof globalThis.fetch;
}

/** Per `<baseUrl>|<address>`: the key, and the username when this server registered it. */
type KeyEntry = { key: string; username?: string };
type KeyFile = Record<string, KeyEntry | string>;

const entryOf = (v: KeyEntry | string | undefined): KeyEntry | undefined =>
  typeof v === 'string' ? { key: v } : v;

const fileOf = (dataDir: string) => path.join(dataDir, 'api-keys.json');

async function readKeys(dataDir: string): Promise<KeyFile> {
  try {
    return JSON.parse(await readFile(fileOf(dataDir), 'utf8')) as KeyFile;
  } catch {
    return {};
  }
}

async function writeKeys(dataDir: string, keys: KeyFile): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${fileOf(dataDir)}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(keys, null, 2), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, fileOf(dataDir));
}

/**
 * The one choice of contract revision in the MCP server: whether the marketplace's manifest
 * declares Revision A (`contract_revision`; B when unstated). Read on the wallet's first use.
 */
export async function speaksRevisionA(
  baseUrl: string,
  fetchFn: typeof globalThis.fetch = globalThis.fetch,
): Promise<boolean> {
  const manifest = await readJson<{ contract_revision?: string }>(
    await fetchFn(`${baseUrl}/api/v1/skills`),
  );
  return manifest.contract_revision === 'A';
}

/** Sets the client's API key on a Revision A marketplace (registering or rotating as needed). */
export async function ensureApiKey(client: MarketplaceClient, setup: KeySetup): Promise<void> {
  const fetchFn = setup.fetch ?? globalThis.fetch;
  if (!(await speaksRevisionA(setup.baseUrl, fetchFn))) return;
  const slot = `${setup.baseUrl}|${client.address.toLowerCase()}`;
  const keys = await readKeys(setup.dataDir);
  const stored = entryOf(keys[slot]);
  if (stored) {
    client.setApiKey(stored.key, stored.username);
    const probe = await fetchFn(`${setup.baseUrl}/api/v1/seller/items?limit=1`, {
      headers: { 'x-api-key': stored.key },
    });
    if (probe.status !== 401) return;
  }
  const key = await obtainKey(client, setup);
  // a rotation keeps the account, so a username registered earlier still holds
  const username = client.knownUsername ?? stored?.username;
  keys[slot] = username ? { key, username } : { key };
  await writeKeys(setup.dataDir, keys);
}

async function obtainKey(client: MarketplaceClient, setup: KeySetup): Promise<string> {
  if (setup.country) {
    try {
      const username = setup.username ?? `mcp-${client.address.slice(2, 12).toLowerCase()}`;
      return (await client.register({ username, country: setup.country })).api_key;
    } catch (e) {
      if (!(e instanceof MarketplaceError) || e.code !== 'wallet_already_registered') throw e;
    }
  }
  try {
    return (await client.rotateKey()).api_key;
  } catch (e) {
    if (e instanceof MarketplaceError && e.code === 'agent_not_found') {
      throw new Error(
        'this marketplace uses API keys (Revision A) and the MCP wallet has no account yet: set MCP_COUNTRY (ISO 3166-1 alpha-2) and optionally MCP_USERNAME so the server can register it',
      );
    }
    throw e;
  }
}
