import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback pass-through in front of a JSON-RPC endpoint (or any HTTP service) that can be
 * switched off: while `down`, every connection is cut before an answer, as an RPC provider outage
 * looks to a client. It notes every request (`seen`: "METHOD /path") and can hold one before
 * forwarding it (`hold`), e.g. to act while a client waits for an answer.
 */
export interface RpcProxy {
  url: string;
  down: boolean;
  /** "METHOD /path?query" of every request received, in order. */
  seen: string[];
  close(): Promise<void>;
}

export async function startRpcProxy(
  target: string,
  opts: { hold?: (req: IncomingMessage) => Promise<void> | void } = {},
): Promise<RpcProxy> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const state = { down: false };
  const seen: string[] = [];
  const server: Server = createServer(async (req, res) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    seen.push(`${req.method} ${req.url}`);
    await opts.hold?.(req);
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
      if (v) for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
