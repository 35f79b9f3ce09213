import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPathOf, install, parseInstallArgs } from '../../mcp/install.js';
import { buildManifests, MCPB_FILE, ROOT, SERVER_JSON_FILE } from '../../tools/mcp/manifests.js';

/** Installable in one line (issue 28): the package, the install command, the generated manifests. */
describe('package and manifests', () => {
  it('the checked-in .mcpb manifest and server.json are what the generator makes now', async () => {
    const { mcpb, serverJson } = await buildManifests();
    // run `npm run mcp:manifests` after changing a tool, the version or the environment
    expect(readFileSync(MCPB_FILE, 'utf8')).toBe(mcpb);
    expect(readFileSync(SERVER_JSON_FILE, 'utf8')).toBe(serverJson);
    const manifest = JSON.parse(mcpb) as { tools: Array<{ name: string }> };
    expect(manifest.tools.map((t) => t.name)).toContain('confirm_purchase');
  });

  it('package.json is publishable: not private, a bin named as the package, files, prepack build', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    > & { bin: Record<string, string>; scripts: Record<string, string>; name: string };
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin[pkg.name]).toBe('dist/mcp/main.js'); // what `npx -y <package>` runs
    expect(pkg.files).toEqual(expect.arrayContaining(['dist/', 'server.json']));
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(JSON.parse(readFileSync(SERVER_JSON_FILE, 'utf8')).name).toBe(pkg.mcpName);
  });
});

describe('install --client', () => {
  it('adds our entry to the client config, keeps the rest, never writes a key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-install-'));
    const file = path.join(dir, 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' } } }));
    const { entry } = await install(
      {
        ...parseInstallArgs(['--client', 'claude', '--url', 'https://market.example']),
        config: file,
      },
      {},
    );
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      theme: string;
      mcpServers: Record<string, unknown>;
    };
    expect(written.theme).toBe('dark');
    expect(written.mcpServers.other).toEqual({ command: 'x' });
    expect(written.mcpServers['artifact-marketplace']).toEqual({
      command: 'npx',
      args: ['-y', 'artifact-marketplace'],
      env: { MARKETPLACE_URL: 'https://market.example' },
    });
    expect(JSON.stringify(entry)).not.toMatch(/PRIVATE_KEY/);
  });

  it("run from a checkout, writes the checkout's built entry: npx would look for the package on the registry", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-install-'));
    const file = path.join(dir, 'claude_desktop_config.json');
    const args = parseInstallArgs(['--client', 'claude', '--config', file]);
    await install({ ...args, entryFile: '/home/me/market/dist/mcp/main.js' }, {});
    const servers = () =>
      (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> })
        .mcpServers;
    expect(servers()['artifact-marketplace']).toEqual({
      command: 'node',
      args: ['/home/me/market/dist/mcp/main.js'],
      env: { MARKETPLACE_URL: 'http://127.0.0.1:3000' },
    });
    // from source (tsx mcp/main.ts): the same checkout's build
    await install({ ...args, entryFile: '/home/me/market/mcp/main.ts' }, {});
    expect(servers()['artifact-marketplace']).toMatchObject({
      args: ['/home/me/market/dist/mcp/main.js'],
    });
    // from an installed package (npx's cache is a node_modules too): npx, current with each release
    await install(
      {
        ...args,
        entryFile: '/home/me/.npm/_npx/1a2b/node_modules/artifact-marketplace/dist/mcp/main.js',
      },
      {},
    );
    expect(servers()['artifact-marketplace']).toMatchObject({
      command: 'npx',
      args: ['-y', 'artifact-marketplace'],
    });
  });

  it('knows where each client keeps its config, and refuses unknown clients and bad JSON', async () => {
    expect(configPathOf('cursor', { HOME: '/h' })).toBe('/h/.cursor/mcp.json');
    expect(configPathOf('claude', { HOME: '/h' }, 'linux')).toBe(
      '/h/.config/Claude/claude_desktop_config.json',
    );
    expect(configPathOf('claude', { HOME: '/h' }, 'darwin')).toBe(
      '/h/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(() => parseInstallArgs(['--client', 'vim'])).toThrow(
      /--client claude or --client cursor/,
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-install-'));
    const bad = path.join(dir, 'mcp.json');
    writeFileSync(bad, '{ not json');
    await expect(install({ client: 'cursor', config: bad }, {})).rejects.toThrow(/not JSON/);
    expect(readFileSync(bad, 'utf8')).toBe('{ not json'); // left as it was
  });
});
