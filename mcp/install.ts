import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * `npx artifact-marketplace install --client claude|cursor [--config <file>] [--url <marketplace>]`:
 * adds this MCP server to the client's configuration file (other servers and keys are kept): run
 * from an installed package (a path under node_modules, npx's cache included) as
 * `npx -y artifact-marketplace`; run from a checkout as `node <checkout>/dist/mcp/main.js`, since
 * a client starts it from elsewhere, where npx would look for the package on the registry. It
 * never writes a private key: the user adds MCP_WALLET_PRIVATE_KEY to the entry's env by hand (or
 * uses the hosted /mcp with their own wallet).
 */
export const SERVER_KEY = 'artifact-marketplace';
export type ClientName = 'claude' | 'cursor';

/** Where each client keeps its MCP configuration on this platform. */
export function configPathOf(
  client: ClientName,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  const home = env.HOME ?? homedir();
  if (client === 'cursor') return path.join(home, '.cursor', 'mcp.json');
  if (platform === 'darwin')
    return path.join(
      home,
      'Library',
      'Application Support',
      'Claude',
      'claude_desktop_config.json',
    );
  if (platform === 'win32')
    return path.join(
      env.APPDATA ?? path.join(home, 'AppData', 'Roaming'),
      'Claude',
      'claude_desktop_config.json',
    );
  return path.join(
    env.XDG_CONFIG_HOME ?? path.join(home, '.config'),
    'Claude',
    'claude_desktop_config.json',
  );
}

export function parseInstallArgs(argv: readonly string[]): {
  client: ClientName;
  config?: string;
  url?: string;
} {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const client = value('--client');
  if (client !== 'claude' && client !== 'cursor')
    throw new Error('install: --client claude or --client cursor is required');
  const url = value('--url');
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url))
    throw new Error('install: --url must be an http(s) URL');
  const config = value('--config');
  return { client, ...(config && { config }), ...(url && { url }) };
}

/** How the client starts the server, from the path of the MCP entry that runs `install`. */
export function launchOf(entryFile: string | undefined): { command: string; args: string[] } {
  if (entryFile === undefined || entryFile.split(/[\\/]/).includes('node_modules'))
    return { command: 'npx', args: ['-y', SERVER_KEY] };
  // from source (tsx mcp/main.ts), the checkout's build is what a client can run
  const built = entryFile.endsWith('.ts')
    ? path.resolve(path.dirname(entryFile), '..', 'dist', 'mcp', 'main.js')
    : path.resolve(entryFile);
  return { command: 'node', args: [built] };
}

/** Adds (or replaces) our entry; returns the file written and the entry. */
export async function install(
  opts: { client: ClientName; config?: string; url?: string; entryFile?: string },
  env: Record<string, string | undefined>,
): Promise<{ file: string; entry: Record<string, unknown> }> {
  const file = opts.config ?? configPathOf(opts.client, env);
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`install: ${file} exists but is not JSON; fix or move it first`);
  }
  const servers =
    typeof current.mcpServers === 'object' && current.mcpServers !== null
      ? (current.mcpServers as Record<string, unknown>)
      : {};
  const entry = {
    ...launchOf(opts.entryFile),
    env: { MARKETPLACE_URL: opts.url ?? 'http://127.0.0.1:3000' },
  };
  const next = { ...current, mcpServers: { ...servers, [SERVER_KEY]: entry } };
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return { file, entry };
}
