import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

export interface TestContext {
  config: Config;
  runtime: Runtime;
  app: App;
  close(): Promise<void>;
}

/**
 * A real app over a real (in-memory) embedded Postgres with every migration applied. Each test
 * file builds its own, so files never share rows.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestContext> {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    PUBLIC_BASE_URL: 'http://marketplace.test',
    ...env,
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const app = await buildApp(config, runtime.deps);
  await app.ready();
  return {
    config,
    runtime,
    app,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
