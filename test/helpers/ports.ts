import { createServer } from 'node:net';

/** A loopback port free at this moment (listen on 0, read it, close). No app is loaded for it. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A free loopback port and the environment a service process is started with on it, as an
 * operator runs the built entry (production mode, its own data directory, its own base URL).
 */
export async function loopbackServiceEnv(
  dataDir: string,
  logLevel: string,
): Promise<{ base: string; env: NodeJS.ProcessEnv }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      LOG_LEVEL: logLevel,
    },
  };
}
