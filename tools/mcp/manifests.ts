import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Approvals } from '../../mcp/approvals.js';
import { createMcpServer } from '../../mcp/server.js';
import { LocalState } from '../../mcp/state.js';
import { CatalogClient } from '../../src/client/catalog.js';

/**
 * The install manifests, generated from package.json and the server's own tool list (never
 * edited by hand): the Claude Desktop bundle manifest `mcpb/manifest.json` (MCPB 0.3) and the MCP
 * Registry `server.json`. `npm run mcp:manifests` writes them; test/unit/mcp-manifests.test.ts
 * regenerates and compares, so a tool or version change without regenerating fails CI.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const MCPB_FILE = path.join(ROOT, 'mcpb/manifest.json');
export const SERVER_JSON_FILE = path.join(ROOT, 'server.json');

interface Pkg {
  name: string;
  version: string;
  description: string;
  mcpName: string;
  license?: string;
}

/** The environment the stdio server reads (mcp/config.ts), as both manifests describe it. */
const ENV = [
  {
    name: 'MARKETPLACE_URL',
    description: 'Base URL of the marketplace',
    required: true,
    secret: false,
  },
  {
    name: 'MCP_WALLET_PRIVATE_KEY',
    description:
      'Private key of the paying wallet (USDC on Base or Polygon); absent: free tools only',
    required: false,
    secret: true,
  },
  {
    name: 'MCP_MAX_PAYMENT_USDC',
    description: 'Most one purchase may cost (default 10)',
    required: false,
    secret: false,
  },
  {
    name: 'MCP_DAILY_LIMIT_USDC',
    description: 'Most spent per rolling 24 hours (default 25)',
    required: false,
    secret: false,
  },
  {
    name: 'MCP_SESSION_LIMIT_USDC',
    description: 'Most signed per MCP session (default 10)',
    required: false,
    secret: false,
  },
  {
    name: 'MCP_CONFIRM_ABOVE_USDC',
    description: 'Purchases above it need the human (default 2)',
    required: false,
    secret: false,
  },
] as const;

async function toolList(): Promise<Array<{ name: string; description: string }>> {
  const baseUrl = 'http://127.0.0.1:3000';
  const server = createMcpServer({
    baseUrl,
    catalog: new CatalogClient({ baseUrl }),
    wallet: undefined,
    limits: { perPurchase: 10, daily: 25, listingFee: 0.05, confirmAbove: 2, perSession: 10 },
    state: new LocalState('/nonexistent/state.json'), // listing tools reads no state
    downloadDir: '/nonexistent',
    approvals: new Approvals(() => ''),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'manifests', version: '1' });
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  // the first sentence: what the tool does (the full text stays with the server)
  return tools.map((t) => ({
    name: t.name,
    description: (t.description ?? '').split(/(?<=\.)\s/)[0]!,
  }));
}

export async function buildManifests(): Promise<{ mcpb: string; serverJson: string }> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Pkg;
  const tools = await toolList();
  const userKey = (name: string) => name.toLowerCase().replace(/^mcp_/, '');
  const mcpb = {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: 'Artifact marketplace',
    version: pkg.version,
    description: pkg.description,
    author: { name: 'Artifact marketplace' },
    license: pkg.license ?? 'UNLICENSED',
    server: {
      type: 'node',
      entry_point: 'dist/mcp/main.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/dist/mcp/main.js'],
        env: Object.fromEntries(ENV.map((e) => [e.name, `\${user_config.${userKey(e.name)}}`])),
      },
    },
    tools,
    user_config: Object.fromEntries(
      ENV.map((e) => [
        userKey(e.name),
        {
          type: 'string',
          title: e.name,
          description: e.description,
          required: e.required,
          ...(e.secret && { sensitive: true }),
          ...(e.name === 'MARKETPLACE_URL' && { default: 'http://127.0.0.1:3000' }),
        },
      ]),
    ),
    compatibility: { runtimes: { node: '>=24.11' } },
  };
  const serverJson = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: pkg.mcpName,
    title: 'Artifact marketplace',
    description: pkg.description.slice(0, 100),
    version: pkg.version,
    packages: [
      {
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
        environmentVariables: ENV.map((e) => ({
          name: e.name,
          description: e.description,
          isRequired: e.required,
          isSecret: e.secret,
          format: 'string',
        })),
      },
    ],
  };
  return {
    mcpb: `${JSON.stringify(mcpb, null, 2)}\n`,
    serverJson: `${JSON.stringify(serverJson, null, 2)}\n`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const { mcpb, serverJson } = await buildManifests();
  writeFileSync(MCPB_FILE, mcpb);
  writeFileSync(SERVER_JSON_FILE, serverJson);
  process.stdout.write(`wrote ${MCPB_FILE} and ${SERVER_JSON_FILE}\n`);
}
