import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { freePort } from './ports.js';
import { databaseEnv } from './postgres.js';

export { freePort };

export interface TestContext {
  config: Config;
  runtime: Runtime;
  app: App;
  close(): Promise<void>;
}

let template: Blob | undefined;

export interface TestAppOptions {
  logger?: Logger;
  /**
   * Given the built app before it starts, e.g. to add a hook that changes what every route
   * answers as a later release of the service would (a field added to its responses).
   */
  beforeReady?: (app: App) => void;
}

/**
 * The migrated database vitest's global setup dumped once for the run (./global-setup.ts): a copy
 * of it starts in a fraction of the time initdb and the migrations take. Outside vitest (the
 * benches) there is none and each database is built from scratch.
 */
export function dbTemplate(): Blob | undefined {
  if (template) return template;
  let file: string | undefined;
  try {
    file = inject('dbTemplate');
  } catch {
    return undefined;
  }
  if (file) template = new Blob([readFileSync(file)]);
  return template;
}

/**
 * A real app over a real (in-memory) embedded Postgres with every migration applied, or on the
 * Postgres tier a fresh database of its own on the tier's cluster (./postgres.ts). Each test file
 * builds its own, so files never share rows.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: TestAppOptions = {},
): Promise<TestContext> {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    PUBLIC_BASE_URL: 'http://marketplace.test',
    // The deployment's default (on the test's thread). A database thread per app would cost ~1 s
    // of start (the whole suite 125 s instead of 81 s): payments safety, persistence and the
    // close test run it explicitly, and TEST_DB_THREAD=true runs every test app with it.
    EMBEDDED_DB_THREAD: process.env.TEST_DB_THREAD ?? 'false',
    ...(env.DATABASE_URL ? {} : await databaseEnv()),
    // never the checkout's ./data (`npm start`'s default store): archives a test writes go to a
    // directory of its own, unless the test names one
    ...(env.ARCHIVES_DIR || env.DATA_DIR
      ? {}
      : { ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'test-archives-')) }),
    ...env,
  });
  const runtime = await createRuntime(config, {
    logger: opts.logger ?? createLogger(config, 2),
    template: dbTemplate(),
  });
  // on a server the start's index builds run in the background: a test starts from a settled
  // database (search-index-builds.test.ts drives the background itself)
  await runtime.indexBuilds;
  const app = await buildApp(config, runtime.deps);
  opts.beforeReady?.(app);
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

export interface ListeningTestContext extends TestContext {
  /** `http://127.0.0.1:<port>`, also the app's PUBLIC_BASE_URL, so emitted URLs are reachable. */
  base: string;
}

/**
 * The real app on a real loopback socket (for clients that speak HTTP: @x402/fetch, the MCP
 * server, header limits Node enforces only on sockets), with archives in a fresh temp directory.
 */
export async function startListeningTestApp(
  env: Record<string, string> = {},
  opts: Pick<TestAppOptions, 'beforeReady'> = {},
): Promise<ListeningTestContext> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp(
    {
      ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'listening-')),
      PUBLIC_BASE_URL: base,
      ...env,
    },
    opts,
  );
  await t.app.listen({ port, host: '127.0.0.1' });
  return { ...t, base };
}
