#!/usr/bin/env node
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import module from 'node:module';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CatalogClient } from '../src/client/catalog.js';
import { loadTracingConfig } from '../src/config.js';
import { startTracing } from '../src/telemetry/tracing.js';
import { isLoopback, loadMcpConfig, type McpConfig } from './config.js';
import type { McpDeps } from './deps.js';
import { createMcpServer } from './server.js';
import { LocalState } from './state.js';
import { lazyWallet } from './wallet.js';

/**
 * Entry of the MCP server (`artifact-marketplace-mcp`, `node dist/mcp/main.js`): reads the
 * config, builds the REST clients and picks the transport (stdio by default, Streamable HTTP with
 * `--http` or MCP_HTTP_PORT). stdout belongs to the stdio transport: nothing else writes to it
 * (logs are JSON lines on stderr). viem and x402 load on the first tool call that signs, so a
 * client connects without waiting for them.
 */
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

function log(level: 'info' | 'error' | 'fatal', msg: string, extra: object = {}): void {
  process.stderr.write(
    `${JSON.stringify({ level, time: Date.now(), name: 'mcp', ...extra, msg })}\n`,
  );
}

function depsOf(config: McpConfig): McpDeps {
  return {
    baseUrl: config.marketplaceUrl,
    catalog: new CatalogClient({ baseUrl: config.marketplaceUrl }),
    wallet: lazyWallet(config),
    limits: config.limits,
    state: LocalState.inDir(config.dataDir),
    downloadDir: config.downloadDir,
  };
}

/** DNS-rebinding guard: a server bound to loopback answers only requests addressed to loopback. */
function hostAllowed(bindHost: string, hostHeader: string | undefined): boolean {
  if (!isLoopback(bindHost)) return true;
  if (!hostHeader) return false;
  try {
    return isLoopback(new URL(`http://${hostHeader}`).hostname);
  } catch {
    return false;
  }
}

/** `Authorization: Bearer <token>`, compared in constant time. */
function bearerOk(token: string | undefined, header: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Stateless Streamable HTTP on POST /mcp: a fresh server and transport per request. Beyond
 * loopback a bearer token is required (the config refuses to start without one); when set, it
 * is required on loopback too.
 */
async function serveHttp(
  deps: McpDeps,
  opts: NonNullable<McpConfig['http']>,
): Promise<() => Promise<void>> {
  const { port, host, token } = opts;
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp')
      return jsonRpcError(res, 404, 'Not found: use /mcp');
    if (!hostAllowed(host, req.headers.host)) return jsonRpcError(res, 403, 'Host not allowed');
    if (!bearerOk(token, req.headers.authorization))
      return jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <MCP_HTTP_TOKEN>', {
        'www-authenticate': 'Bearer',
      });
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
      log('error', 'mcp http request failed', { err: String(err) });
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address();
  log('info', 'mcp streamable http listening', {
    url: `http://${host}:${typeof address === 'object' && address ? address.port : port}/mcp`,
    auth: token ? 'bearer' : 'none (loopback only)',
  });
  return () =>
    new Promise((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections(); // keep-alive sockets would hold close() open
    });
}

async function main(): Promise<void> {
  const config = loadMcpConfig(process.env, process.argv.slice(2));
  // off unless the OTEL_* settings ask for it (then the SDK loads; otherwise nothing does)
  const tracing = await startTracing(loadTracingConfig(process.env), 'artifact-marketplace-mcp');
  const deps = { ...depsOf(config), ...(tracing && { tracing }) };
  log('info', 'mcp server starting', {
    marketplace: config.marketplaceUrl,
    wallet: config.walletPrivateKey ? 'configured' : 'none',
    limits: config.limits,
    state: deps.state.file,
  });
  let close: () => Promise<void>;
  if (config.http) {
    close = await serveHttp(deps, config.http);
  } else {
    const server = createMcpServer(deps);
    await server.connect(new StdioServerTransport());
    close = () => server.close();
    // a client that goes away closes stdin: exit with it
    process.stdin.once('end', () => void close().finally(() => process.exit(0)));
  }
  if (tracing) {
    const closeServer = close;
    close = async () => {
      await closeServer();
      await tracing.shutdown().catch(() => {});
    };
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      close().finally(() => process.exit(0));
    });
  }
}

main().catch((err: unknown) => {
  log('fatal', err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
