import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { MarketplaceFetch } from '../../../mcp/hosted/paid-call.js';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { CORS_RESPONSE_HEADERS } from '../plugins/cors.js';
import { uploadBodyLimit } from './selling.js';
import type { RouteGroup } from '../face.js';

/**
 * A fetch that answers from this app's own routes (Fastify's inject): the hosted MCP tools reach
 * the very REST routes, credential hooks, rate limits and payment guard an HTTP client reaches,
 * as the MCP client's address and with its region header, without a network hop.
 */
function inProcessFetch(
  app: FastifyInstance,
  outer: FastifyRequest,
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'REGION_COUNTRY_HEADER'>,
): MarketplaceFetch {
  const regionHeader = config.REGION_COUNTRY_HEADER.toLowerCase();
  return async (url, init) => {
    const req = new Request(url, init);
    if (!req.url.startsWith(`${config.PUBLIC_BASE_URL}/`))
      throw new Error(`hosted MCP: ${req.url} is not on this marketplace`);
    const target = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const region = outer.headers[regionHeader];
    if (typeof region === 'string') headers[regionHeader] = region;
    const payload = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const res = await app.inject({
      method: req.method as 'GET',
      url: `${target.pathname}${target.search}`,
      headers,
      remoteAddress: outer.ip,
      ...(payload && { payload }),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers as OutgoingHttpHeaders)) {
      if (v === undefined) continue;
      for (const one of [v].flat()) out.append(k, String(one));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || req.method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers: out });
  };
}

/**
 * Large `/mcp` bodies in flight per client address (this process): each one is buffered whole
 * before the tool runs, so one address cannot hold many at once. Counted at `onRequest`, before
 * any of the body is read; given back when the response closes (answered or aborted).
 */
function largeBodyGate(
  config: Pick<Config, 'MCP_LARGE_BODY_BYTES' | 'MCP_LARGE_BODIES_PER_ADDRESS'>,
) {
  const inFlight = new Map<string, number>();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const declared = Number(request.headers['content-length']);
    // no declared length (chunked): as large as the route allows
    if (Number.isFinite(declared) && declared <= config.MCP_LARGE_BODY_BYTES) return;
    const address = request.ip;
    const held = inFlight.get(address) ?? 0;
    if (held >= config.MCP_LARGE_BODIES_PER_ADDRESS) {
      throw new AppError('too_many_large_requests', {
        message: `At most ${config.MCP_LARGE_BODIES_PER_ADDRESS} calls over ${config.MCP_LARGE_BODY_BYTES} bytes from one address at a time; wait for one to finish, then retry.`,
        retry_after: 1,
        headers: { 'Retry-After': '1' },
      });
    }
    inFlight.set(address, held + 1);
    reply.raw.once('close', () => {
      const left = (inFlight.get(address) ?? 1) - 1;
      if (left > 0) inFlight.set(address, left);
      else inFlight.delete(address);
    });
  };
}

/**
 * The MCP SDK and the hosted server's tools, loaded at the first `POST /mcp` rather than at start:
 * a service that is never called there (most of them, and every idle one) does not hold their
 * modules (about 5 MB of heap, ~15 MB resident).
 */
let hosted:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
        typeof import('../../../mcp/hosted/server.js'),
      ]
    >
  | undefined;
function loadHosted() {
  hosted ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('../../../mcp/hosted/server.js'),
  ]);
  hosted.catch(() => (hosted = undefined));
  return hosted;
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * `POST /mcp`: the hosted MCP endpoint (Streamable HTTP, stateless: a server per request, any
 * replica answers, JSON responses). It holds no wallet; paid and account tools are paid through
 * the x402 MCP transport (mcp/hosted/). Off with MCP_HOSTED_ENABLED=false.
 */
export const mcpRoutes: RouteGroup = async (app, { deps }) => {
  const { config } = deps;
  const root = app as unknown as FastifyInstance;
  app.post(
    '/mcp',
    // list_item carries the archive in base64: the JSON upload's limit plus the JSON-RPC envelope
    {
      config: { auth: 'public' },
      schema: { hide: true },
      bodyLimit: uploadBodyLimit(config) + 64 * 1024,
      onRequest: largeBodyGate(config),
    },
    async (request, reply) => {
      // JSON-RPC 2.0: an empty batch is one Invalid Request, answered with one error object (the
      // transport would accept it as a batch of notifications and answer 202 with nothing)
      if (Array.isArray(request.body) && request.body.length === 0)
        return reply.code(400).send(jsonRpcError(-32600, 'Invalid Request: an empty batch'));
      // a batch is as many requests as it holds messages (one was counted at onRequest): 100
      // `tools/list` in one body answered 3.6 MB and counted once
      const messages = Array.isArray(request.body) ? request.body.length : 1;
      if (messages > 1) await root.countUnsigned(request, messages - 1);
      let loaded: Awaited<ReturnType<typeof loadHosted>>;
      try {
        loaded = await loadHosted();
      } catch (err) {
        // loaded at the first POST (not at start): a failed load answers this request as the MCP
        // client reads errors, and the next request loads again
        request.log.error({ err }, 'the hosted MCP server could not be loaded');
        return reply
          .code(503)
          .header('retry-after', '5')
          .send(jsonRpcError(-32603, 'the MCP server could not be loaded: try again shortly'));
      }
      const [{ StreamableHTTPServerTransport }, { createHostedMcpServer }] = loaded;
      const server = createHostedMcpServer({
        baseUrl: config.PUBLIC_BASE_URL,
        fetch: inProcessFetch(root, request, config),
        maxArchiveBytes: config.MAX_ARCHIVE_BYTES,
        revision: config.CONTRACT_REVISION,
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      // The transport writes on the raw response, past the onSend hooks: the CORS headers the
      // rest of the API sends go on first (helmet's are set on the raw response at onRequest).
      for (const [name, value] of Object.entries(CORS_RESPONSE_HEADERS))
        reply.raw.setHeader(name, value);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  for (const method of ['GET', 'DELETE'] as const)
    app.route({
      method,
      url: '/mcp',
      config: { auth: 'public' },
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .code(405)
          .header('allow', 'POST')
          .send(
            jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless, use POST'),
          ),
    });
};
