import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isLoopback, type McpConfig } from './config.js';

/**
 * The local server's Streamable HTTP transport (`--http`): one MCP session per client, kept in
 * memory (`Mcp-Session-Id`), so a tool sees the capabilities the client declared at initialize
 * (elicitation asks the human exactly as over stdio) and per-session state (the session's
 * spending) lives as long as the session. Sessions idle past `idleMs` are closed.
 */
export interface HttpServing {
  url: string;
  /** Open sessions (for tests and logs). */
  sessions(): number;
  close(): Promise<void>;
}

type Log = (level: 'info' | 'error', msg: string, extra?: object) => void;

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
  code = -32000,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** What the SDK's own transport answers for a session it does not hold (JSON-RPC code). */
const SESSION_NOT_FOUND = -32001;

async function readBody(req: IncomingMessage, max = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) throw new RangeError('body too large');
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

const isInitialize = (body: unknown) =>
  [body]
    .flat()
    .some(
      (m) =>
        typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
    );

/**
 * Serves `/mcp` on `opts.host:opts.port`. Beyond loopback a bearer token is required (the config
 * refuses to start without one); when set, it is required on loopback too.
 */
export async function serveHttp(
  newServer: () => McpServer,
  opts: NonNullable<McpConfig['http']> & { idleMs?: number },
  log: Log = () => {},
  extraRoutes?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>,
): Promise<HttpServing> {
  const { port, host, token } = opts;
  const idleMs = opts.idleMs ?? 30 * 60_000;
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const sessions = new Map<
    string,
    { server: McpServer; transport: StreamableHTTPServerTransport; seen: number }
  >();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!hostAllowed(host, req.headers.host)) return jsonRpcError(res, 403, 'Host not allowed');
    if (url.pathname !== '/mcp') {
      if (extraRoutes && (await extraRoutes(req, res, url))) return;
      return jsonRpcError(res, 404, 'Not found: use /mcp');
    }
    if (!bearerOk(token, req.headers.authorization))
      return jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <MCP_HTTP_TOKEN>', {
        'www-authenticate': 'Bearer',
      });
    const sid = req.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    if (id !== undefined) {
      const s = sessions.get(id);
      // a session of an earlier process (a restart) or one closed idle: 404, on which the spec
      // tells the client to initialize again
      if (!s)
        return jsonRpcError(
          res,
          404,
          'Session not found: initialize a new session',
          {},
          SESSION_NOT_FOUND,
        );
      s.seen = Date.now();
      return s.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST')
      return jsonRpcError(res, 400, 'Bad request: no Mcp-Session-Id (initialize first with POST)');
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      return jsonRpcError(res, 400, 'Bad request: the body is not JSON (or too large)');
    }
    if (!isInitialize(body))
      return jsonRpcError(res, 400, 'Bad request: no Mcp-Session-Id (initialize first)');
    const server = newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        sessions.set(newId, { server, transport, seen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions)
        if (now - s.seen > idleMs) {
          sessions.delete(id);
          void s.transport.close();
        }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();
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
  const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}/mcp`;
  log('info', 'mcp streamable http listening', {
    url,
    auth: token ? 'bearer' : 'none (loopback only)',
  });
  return {
    url,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections(); // keep-alive sockets would hold close() open
      });
    },
  };
}
