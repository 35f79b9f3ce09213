import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Approvals } from '../../mcp/approvals.js';
import type { SpendingLimits } from '../../mcp/config.js';
import { serveHttp, type HttpServing } from '../../mcp/http.js';
import type { McpDeps } from '../../mcp/deps.js';
import { createMcpServer } from '../../mcp/server.js';
import { LocalState } from '../../mcp/state.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { MarketplaceClient } from '../../src/client/index.js';
import { MCP_ENTRY, ROOT } from './build.js';

export interface McpTestOptions {
  /** Tool calls as spans (the MCP server's tracing when OTEL_* turn it on). */
  tracing?: McpDeps['tracing'];
  /** false: no signing key. */
  wallet?: boolean;
  /** A given key (e.g. a seller that already listed); a fresh one otherwise. */
  key?: `0x${string}`;
  limits?: Partial<SpendingLimits>;
  /** Shares the state file and download folder of an earlier connection (a restart). */
  dataDir?: string;
  /** The server's wallet as the caller builds it (e.g. the entry's lazy wallet with key set-up). */
  walletOf?: (ctx: {
    key: `0x${string}`;
    dataDir: string;
    limits: SpendingLimits;
  }) => McpDeps['wallet'];
  /** The client answers elicitation requests with this (no elicitation capability when absent). */
  elicit?: (message: string) => ElicitResult | Promise<ElicitResult>;
  /** The approval path for clients that cannot ask (confirm_purchase), as the entry wires it. */
  approvals?: Approvals;
  /** The operator's recipient and asset allow-lists. */
  allow?: McpDeps['allow'];
  /**
   * 'http': the server behind the local Streamable HTTP transport (mcp/http.ts, one session per
   * client) on a loopback port, the client over StreamableHTTPClientTransport; in memory otherwise.
   */
  transport?: 'memory' | 'http';
}

export const TEST_LIMITS: SpendingLimits = {
  perPurchase: 10,
  daily: 50,
  listingFee: 0.05,
  confirmAbove: 10,
};

/**
 * A real MCP client connected over InMemoryTransport to the real MCP server, whose tools call the
 * real marketplace at `base` with a real viem wallet. `call` also checks that no result ever
 * quotes the private key.
 */
export async function connectMcp(base: string, opts: McpTestOptions = {}) {
  const key = opts.key ?? generatePrivateKey();
  const account: LocalAccount = privateKeyToAccount(key);
  const limits = { ...TEST_LIMITS, ...opts.limits };
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'mcp-state-'));
  const wallet =
    opts.wallet === false || opts.walletOf
      ? undefined
      : new MarketplaceClient({ baseUrl: base, account, maxPaymentUsdc: limits.perPurchase });
  const deps: McpDeps = {
    baseUrl: base,
    catalog: new CatalogClient({ baseUrl: base }),
    wallet: opts.walletOf
      ? opts.walletOf({ key, dataDir, limits })
      : wallet
        ? async () => wallet
        : undefined,
    limits,
    state: LocalState.inDir(dataDir),
    downloadDir: path.join(dataDir, 'downloads'),
    ...(opts.tracing && { tracing: opts.tracing }),
    ...(opts.allow && { allow: opts.allow }),
    ...(opts.approvals && { approvals: opts.approvals }),
  };
  let clientSide: Transport;
  let serving: HttpServing | undefined;
  if (opts.transport === 'http') {
    serving = await serveHttp(() => createMcpServer(deps), {
      port: 0,
      host: '127.0.0.1',
      token: undefined,
    });
    clientSide = new StreamableHTTPClientTransport(new URL(serving.url));
  } else {
    const [c, serverSide] = InMemoryTransport.createLinkedPair();
    clientSide = c;
    await createMcpServer(deps).connect(serverSide);
  }
  const client = new Client(
    { name: 'mcp-test', version: '1.0.0' },
    { capabilities: opts.elicit ? { elicitation: {} } : {} },
  );
  const elicited: string[] = [];
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const message = String(req.params.message);
      elicited.push(message);
      return answer(message);
    });
  }
  await client.connect(clientSide);
  // listing the tools makes the SDK client check every structuredContent against its tool's
  // outputSchema (callTool throws on a mismatch)
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (JSON.stringify(result).includes(key.slice(2))) throw new Error('a result quoted the key');
    return result;
  };
  return {
    client,
    call,
    account,
    key,
    dataDir,
    deps,
    elicited,
    serving,
    close: async () => {
      await client.close();
      await serving?.close();
    },
  };
}

/**
 * An MCP wallet (`walletOf`) whose marketplace client counts the payment signatures it sends
 * (`signatures()`): how a test sees that a pending payment was re-sent, not signed again.
 */
export function countingWallet(base: string, { loseAnswers = false } = {}) {
  let sent = 0;
  let losing = loseAnswers;
  const counting: typeof fetch = async (input, init) => {
    const paid = new Headers(init?.headers).get('PAYMENT-SIGNATURE');
    if (paid) sent++;
    const res = await fetch(input, init);
    // `loseAnswers`: the service settles and commits; the connection drops before its answer arrives
    if (paid && losing) {
      await res.arrayBuffer();
      throw new TypeError('fetch failed', { cause: new Error('other side closed') });
    }
    return res;
  };
  const walletOf = ({ key }: { key: `0x${string}` }) => {
    const client = new MarketplaceClient({
      baseUrl: base,
      account: privateKeyToAccount(key),
      maxPaymentUsdc: 5,
      fetch: counting,
    });
    return async () => client;
  };
  return {
    walletOf,
    signatures: () => sent,
    /** from now on the paid answers arrive */
    deliverAnswers: () => {
      losing = false;
    },
  };
}

export const textOf = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/**
 * The built MCP entry (`node dist/mcp/main.js`) spawned over stdio as an agent's host runs it,
 * with `env` added to the default environment, connected and its tools listed (so the client
 * checks every later call's output against the tool's schema). Its stderr is dropped.
 */
export async function spawnBuiltMcp(env: Record<string, string>, name = 'e2e'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MCP_ENTRY],
      cwd: ROOT,
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  return client;
}
