import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import pino from 'pino';
import type { LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CatalogClient, MarketplaceClient } from '../src/client/index.js';
import { loadMcpConfig, type McpConfig } from './config.js';
import { createMcpServer, type McpDeps } from './server.js';

/**
 * Entry of the MCP server: reads the config, builds the REST clients and picks the transport
 * (stdio by default, Streamable HTTP with `--http` or MCP_HTTP_PORT). stdout belongs to the stdio
 * transport, so logs go to stderr only.
 */
const log = pino({ name: 'mcp', level: 'info' }, pino.destination({ fd: 2, sync: true }));

/** The signing account; the key's own error text is never surfaced (it could quote the key). */
function accountOf(key: `0x${string}` | undefined): LocalAccount | undefined {
  if (!key) return undefined;
  try {
    return privateKeyToAccount(key);
  } catch {
    throw new Error(
      'Invalid MCP configuration:\n  MCP_WALLET_PRIVATE_KEY: not a valid secp256k1 private key',
    );
  }
}

function depsOf(config: McpConfig): McpDeps {
  const account = accountOf(config.walletPrivateKey);
  return {
    baseUrl: config.marketplaceUrl,
    catalog: new CatalogClient({ baseUrl: config.marketplaceUrl }),
    wallet: account
      ? new MarketplaceClient({
          baseUrl: config.marketplaceUrl,
          account,
          maxPaymentUsdc: config.maxPaymentUsdc,
        })
      : undefined,
    maxPaymentUsdc: config.maxPaymentUsdc,
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** DNS-rebinding guard: a server bound to loopback answers only requests addressed to loopback. */
function hostAllowed(bindHost: string, hostHeader: string | undefined): boolean {
  if (!LOOPBACK.has(bindHost)) return true;
  if (!hostHeader) return false;
  try {
    return LOOPBACK.has(new URL(`http://${hostHeader}`).hostname);
  } catch {
    return false;
  }
}

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Stateless Streamable HTTP on POST /mcp: a fresh server and transport per request. */
async function serveHttp(deps: McpDeps, port: number, host: string): Promise<() => Promise<void>> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp')
      return jsonRpcError(res, 404, 'Not found: use /mcp');
    if (!hostAllowed(host, req.headers.host)) return jsonRpcError(res, 403, 'Host not allowed');
    if (req.method !== 'POST')
      return jsonRpcError(res, 405, 'Method not allowed: this server is stateless, use POST');
    const server = createMcpServer(deps);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'mcp http request failed');
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address();
  log.info(
    { url: `http://${host}:${typeof address === 'object' && address ? address.port : port}/mcp` },
    'mcp streamable http listening',
  );
  return () =>
    new Promise((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections(); // keep-alive sockets would hold close() open
    });
}

async function main(): Promise<void> {
  const config = loadMcpConfig(process.env, process.argv.slice(2));
  const deps = depsOf(config);
  log.info(
    {
      marketplace: config.marketplaceUrl,
      wallet: deps.wallet?.address ?? 'none',
      maxPaymentUsdc: config.maxPaymentUsdc,
    },
    'mcp server starting',
  );
  let close: () => Promise<void>;
  if (config.http) {
    close = await serveHttp(deps, config.http.port, config.http.host);
  } else {
    const server = createMcpServer(deps);
    await server.connect(new StdioServerTransport());
    close = () => server.close();
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      close().finally(() => process.exit(0));
    });
  }
}

main().catch((err: unknown) => {
  log.fatal(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
