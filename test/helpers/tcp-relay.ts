import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of a server (Postgres), which a test cuts and restores: cut
 * ends every relayed connection and stops listening, so new connections are refused, as while
 * the server restarts; restore listens on the same port again. Only the processes that reach the
 * server through the relay see the outage, never the rest of the test run's cluster.
 */
export async function startTcpRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => sockets.delete(s));
  };
  let holding = false;
  let frozen = false;
  const pairs = new Set<[Socket, Socket]>();
  const relay = (client: Socket) => {
    track(client);
    // a path that accepts and then never answers (a hung server or a dropped network)
    if (holding) return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.once('close', () => pairs.delete(pair));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  let server = createServer(relay);
  const port = await listen(server, 0);
  return {
    port,
    /** Refuses new connections and ends the open ones. */
    async cut(): Promise<void> {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
    /**
     * Ends the open connections and accepts new ones without ever answering them, until
     * `restore`: what a client meets when the path to the server hangs.
     */
    hold(): void {
      holding = true;
      for (const s of sockets) s.destroy();
    },
    /**
     * Stops forwarding on the open connections without closing them (a path that stalls in the
     * middle of an answer), until `restore` ends them.
     */
    freeze(): void {
      frozen = true;
      for (const [client, upstream] of pairs) {
        upstream.unpipe(client);
        client.unpipe(upstream);
        upstream.pause();
        client.pause();
      }
    },
    /** Accepts connections again, on the same port. */
    async restore(): Promise<void> {
      if (holding || frozen) {
        holding = false;
        frozen = false;
        for (const s of sockets) s.destroy();
        return;
      }
      server = createServer(relay);
      await listen(server, port);
    },
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise((r) => server.close(r));
    },
  };
}
