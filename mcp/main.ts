#!/usr/bin/env node
import module from 'node:module';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CatalogClient } from '../src/client/catalog.js';
import { loadTracingConfig } from '../src/config.js';
import { redactJsonLine, registerSecret } from '../src/log-redact.js';
import { startTracing } from '../src/telemetry/tracing.js';
import { approvalPage, Approvals } from './approvals.js';
import { loadMcpConfig, type McpConfig } from './config.js';
import { serveHttp } from './http.js';
import type { McpDeps } from './deps.js';
import { lockDataDir } from './data-lock.js';
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
  // a tool's extra fields never carry a signature, secret or review text to the log, at any depth
  process.stderr.write(
    `${redactJsonLine(JSON.stringify({ level, time: Date.now(), name: 'mcp', ...extra, msg }))}\n`,
  );
}

/** Approvals for clients that cannot ask: the code goes to the log and, over HTTP, a page. */
function approvalsOf(http: { base?: string }): Approvals {
  return new Approvals((a) => {
    log('info', 'purchase waiting for the human: read this code to the assistant', {
      approval_id: a.id,
      code: a.code,
      purchase: a.text,
    });
    return http.base
      ? `on the approval page ${http.base}/approvals/${a.id} (also in this MCP server's log)`
      : "in this MCP server's log (its stderr, which the MCP client keeps as the server's log)";
  });
}

function depsOf(config: McpConfig, approvals: Approvals): McpDeps {
  return {
    baseUrl: config.marketplaceUrl,
    catalog: new CatalogClient({ baseUrl: config.marketplaceUrl }),
    wallet: lazyWallet(config),
    limits: config.limits,
    state: LocalState.inDir(config.dataDir),
    downloadDir: config.downloadDir,
    allow: config.allow,
    approvals,
    log,
  };
}

async function main(): Promise<void> {
  if (process.argv[2] === 'install') {
    const { install, parseInstallArgs } = await import('./install.js');
    const { file } = await install(
      {
        ...parseInstallArgs(process.argv.slice(3)),
        entryFile: realpathSync(fileURLToPath(import.meta.url)),
      },
      process.env,
    );
    process.stderr.write(
      `Added "artifact-marketplace" to ${file}. Restart the client. To let it pay, add MCP_WALLET_PRIVATE_KEY ` +
        "to that entry's env yourself (a funded wallet; limits in docs/mcp.md); without it only the free tools work.\n",
    );
    return;
  }
  const config = loadMcpConfig(process.env, process.argv.slice(2));
  // the wallet's key never reaches the log, under whatever name (src/log-redact.ts)
  registerSecret(config.walletPrivateKey);
  // one process per data directory: waits briefly for another, then refuses (./data-lock.ts)
  const unlock = await lockDataDir(config.dataDir, {
    onCompromised: (err) => {
      log('fatal', `lost the lock on the data directory ${config.dataDir}: stopping`, {
        reason: err.message,
      });
      process.exit(1);
    },
  });
  // off unless the OTEL_* settings ask for it (then the SDK loads; otherwise nothing does)
  const tracing = await startTracing(loadTracingConfig(process.env), 'artifact-marketplace-mcp');
  const http: { base?: string } = {};
  const approvals = approvalsOf(http);
  const deps = { ...depsOf(config, approvals), ...(tracing && { tracing }) };
  log('info', 'mcp server starting', {
    marketplace: config.marketplaceUrl,
    wallet: config.walletPrivateKey ? 'configured' : 'none',
    limits: config.limits,
    state: deps.state.file,
  });
  let close: () => Promise<void>;
  if (config.http) {
    const serving = await serveHttp(
      () => createMcpServer(deps),
      config.http,
      log,
      (req, res, url) => {
        const m = /^\/approvals\/([0-9a-f-]{36})$/.exec(url.pathname);
        if (!m || req.method !== 'GET') return false;
        const page = approvalPage(approvals, m[1]!);
        res.writeHead(page ? 200 : 404, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
          'referrer-policy': 'no-referrer',
        });
        res.end(page ?? 'No such approval (expired, used or cancelled).');
        return true;
      },
    );
    http.base = serving.url.replace(/\/mcp$/, '');
    close = serving.close;
  } else {
    const server = createMcpServer(deps);
    await server.connect(new StdioServerTransport());
    close = () => server.close();
    // a client that goes away closes stdin: exit with it
    process.stdin.once('end', () => void close().finally(() => process.exit(0)));
  }
  {
    const closeServer = close;
    close = async () => {
      await closeServer();
      await unlock().catch(() => {});
    };
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
