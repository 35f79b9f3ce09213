import net from 'node:net';
import type { Logger } from 'pino';
import { argumentsProblem, COMMANDS, ONE_SHOT_COMMANDS } from './command-names.js';
import { ConfigError, loadConfig, StartupError, type Config } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { loadDemoData } from './domain/discovery/demo.js';
import { reindexAll } from './domain/search/index-item.js';
import { backfillPreviews } from './domain/scan/backfill.js';
import { ensureVectorIndex } from './domain/search/vectors.js';
import { buildApp } from './http/app.js';
import { startMetricsServer } from './http/metrics-server.js';
import { createLogger } from './logger.js';
import { progressOnStderr } from './progress.js';
import { unresolvedPayments } from './domain/payments/reconciler.js';
import { moderateCommand, parseModerate } from './domain/feedback/moderation.js';
import { TOKEN_ACTOR } from './domain/operator/credentials.js';
import { withdrawSigner } from './domain/scan/signers.js';
import { AppError } from './errors.js';
import { createRuntime, startBackground, vectorIndexMeaning, type Runtime } from './runtime.js';
import {
  moderateOverApi,
  operatorApiOf,
  publishOperatorApi,
  unresolvedOverApi,
  withdrawOverApi,
} from './operator-api.js';

/** A one-shot command's result: one JSON object on its own line of stdout. */
function printResult(result: object): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * The commands: `serve` (default), `worker`, `migrate`, `reindex`, `previews`, `demo`,
 * `unresolved-payments`, `moderate`, `attestation-withdraw` (the process entry, ./main.ts, loads
 * this module).
 */
async function main(command: string, args: string[]): Promise<void> {
  if (!COMMANDS.includes(command)) {
    throw new StartupError(`unknown command "${command}": use one of ${COMMANDS.join(', ')}`);
  }
  const problem = argumentsProblem(command, args);
  if (problem) throw new StartupError(problem);
  const config = loadConfig(process.env);
  // A one-shot command's stdout carries its results only (JSON lines a script parses): its log
  // lines go to stderr. serve, worker and demo log to stdout, as a container's log.
  const oneShot = ONE_SHOT_COMMANDS.includes(command);
  const logger = createLogger(config, oneShot ? 2 : 1);
  // The serving processes bound each statement and idle transaction (src/db/timeouts.ts); a one-shot
  // command runs without: an operator starts and watches it (Ctrl-C stops it), and its work may
  // wait for minutes on purpose (migrations behind another replica's, reindex's index builds).
  const open = { logger, timeouts: !oneShot };

  switch (command) {
    case 'migrate': {
      const db = await openDatabase(config, open);
      try {
        const res = await migrate(db.sql, undefined, { logger });
        const result = { applied: res.applied, already: res.skipped.length };
        logger.info(result, 'migrations done');
        printResult(result);
      } finally {
        await db.close();
      }
      return;
    }
    case 'reindex': {
      // Recompute listing vectors after a provider or dimension change; `--force` redoes all.
      // Then the search indexes, built here (not in the background as at start), each reported.
      const runtime = await createRuntime(config, { ...open, buildIndexes: false });
      const { sql, embedder } = runtime.deps;
      const progress = await progressOnStderr('reindex', 'listings', {
        intervalMs: config.PROGRESS_INTERVAL_MS,
      });
      try {
        const res = await reindexAll(sql, embedder, {
          force: args.includes('--force'),
          onProgress: ({ done, total }) => progress.update(done, total),
        });
        progress.stop();
        // on a server concurrently (the fleet's writes proceed), waiting for a replica's build of
        // the same index rather than skipping it; progress every few seconds
        await ensureVectorIndex(sql, embedder.dimensions, {
          concurrently: runtime.db.kind === 'server',
          wait: true,
          logger: logger.child(vectorIndexMeaning(embedder)),
          progressMs: 5_000,
        });
        const result = {
          reindexed: res.done,
          model: embedder.model,
          dimensions: embedder.dimensions,
        };
        logger.info(result, 'reindex done');
        printResult(result);
      } finally {
        progress.stop();
        await runtime.close();
      }
      return;
    }
    case 'previews': {
      // Previews and signed scan reports for listings active before they existed (issue 29).
      const runtime = await createRuntime(config, open);
      const progress = await progressOnStderr('previews', 'listings', {
        intervalMs: config.PROGRESS_INTERVAL_MS,
        extras: ['skipped'],
      });
      try {
        const res = await backfillPreviews(runtime.deps, {
          force: args.includes('--force'),
          onProgress: (p) => progress.update(p.done, p.total, { skipped: p.skipped }),
        });
        progress.stop();
        logger.info(res, 'previews done');
        printResult(res);
      } finally {
        progress.stop();
        await runtime.close();
      }
      return;
    }
    case 'unresolved-payments': {
      // Operators: settlements still open after RECONCILE_ALERT_AFTER_SECONDS (or --all), one JSON
      // line each, for a look at the chain (money may have moved without an order). While a
      // service holds the embedded database, through its operator API.
      const age = args.includes('--all') ? 0 : config.RECONCILE_ALERT_AFTER_SECONDS;
      const api = await operatorApiOf(config);
      if (api) {
        const rows = await unresolvedOverApi(api, age);
        for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
        logger.info(
          { count: rows.length, olderThanSeconds: age, via: api.url },
          'unresolved settlements listed by the running service',
        );
        return;
      }
      const runtime = await createRuntime(config, open);
      try {
        const rows = await unresolvedPayments(runtime.deps.payments.store, age);
        for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
        logger.info({ count: rows.length, olderThanSeconds: age }, 'unresolved settlements listed');
      } finally {
        await runtime.close();
      }
      return;
    }
    case 'moderate': {
      // Operators: pending item feedback with its item and text (one JSON line each), and the
      // verdicts: `moderate approve <id>...`, `moderate reject <id>...`. While a service holds
      // the embedded database, through its operator API (the same lines).
      // a refused argument stops here, before the database is opened
      const request = parseModerate(args);
      if ('refused' in request) {
        process.stdout.write(`${request.refused}\n`);
        process.exitCode = 1;
        return;
      }
      const api = await operatorApiOf(config);
      const runtime = api ? undefined : await createRuntime(config, open);
      try {
        const { lines, ok } = api
          ? await moderateOverApi(api, args)
          : await moderateCommand(runtime!.deps.sql, args);
        for (const line of lines) process.stdout.write(`${line}\n`);
        // stdout stays one JSON object per line; the empty queue is said on stderr
        if (ok && lines.length === 0 && (args[0] ?? 'list') === 'list') {
          process.stderr.write('moderation queue is empty: no feedback is waiting\n');
        }
        if (!ok) process.exitCode = 1;
      } finally {
        await runtime?.close();
      }
      return;
    }
    case 'attestation-withdraw': {
      // Operators: `attestation-withdraw <address>` withdraws a retired attestation key, so the
      // reports it signed stop verifying (src/domain/scan/signers.ts). While a service holds the
      // embedded database, through its operator API.
      const address = args[0]!; // exactly one, checked above
      const api = await operatorApiOf(config);
      if (api) {
        printResult((await withdrawOverApi(api, address)) as object);
        return;
      }
      const runtime = await createRuntime(config, open);
      try {
        const result = await withdrawSigner(
          runtime.deps.sql,
          address,
          runtime.deps.attestor.address,
          TOKEN_ACTOR,
        );
        logger.info(result, 'attestation key withdrawn');
        printResult(result);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        throw new StartupError(`attestation-withdraw refused: ${e.code}: ${e.message}`);
      } finally {
        await runtime.close();
      }
      return;
    }
    case 'demo':
    case 'serve': {
      const runtime = await createRuntime(config, open);
      if (command === 'demo') {
        const res = await loadDemoData(runtime.deps);
        logger.info(res, 'demo listings loaded');
      }
      const app = await buildApp(config, runtime.deps);
      const stoppers: Array<() => Promise<void>> = [];
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        await app.close();
        for (const stop of stoppers) await stop();
        await runtime.close();
        await exitFlushed(logger, 0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      // Jobs (scans) and periodic tasks (reconciliation, purge) in this process unless workers run
      // separately.
      if (config.IN_PROCESS_WORKER) stoppers.push(startBackground(runtime.deps));
      stoppers.push(await exposeMetrics(config, runtime));
      await listen(app, config);
      // the operator commands reach this process while it holds the embedded database
      const listening = app.server.address();
      if (listening && typeof listening === 'object') {
        stoppers.push(
          await publishOperatorApi(config, { port: listening.port, host: config.HOST }),
        );
      }
      warnUnreachableBaseUrl(config, logger);
      logger.info(
        {
          url: config.PUBLIC_BASE_URL,
          guide: `${config.PUBLIC_BASE_URL}/agent-usage`,
          database: runtime.db.kind,
          startup_ms: Math.round(process.uptime() * 1000),
        },
        `marketplace ready at ${config.PUBLIC_BASE_URL}`,
      );
      return;
    }
    case 'worker': {
      // A separate worker process: scan jobs and the retention cleanup, claimed with SKIP LOCKED.
      const runtime = await createRuntime(config, open);
      const stop = startBackground(runtime.deps);
      const stopMetrics = await exposeMetrics(config, runtime);
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'worker stopping');
        await stop();
        await stopMetrics();
        await runtime.close();
        await exitFlushed(logger, 0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      logger.info({ database: runtime.db.kind }, 'worker started');
      return;
    }
  }
}

/**
 * Metrics for the operator's scraper: process and event-loop metrics join the registry when
 * metrics are exposed at all, and METRICS_PORT opens the separate listener. The returned stopper
 * also exports the spans still buffered when tracing is on.
 */
async function exposeMetrics(config: Config, runtime: Runtime): Promise<() => Promise<void>> {
  const { telemetry, tracing, logger } = runtime.deps;
  if (config.METRICS_TOKEN !== undefined || config.METRICS_PORT !== undefined) {
    telemetry.collectProcessMetrics();
  }
  let closeListener = async () => {};
  if (config.METRICS_PORT !== undefined) {
    const where = `${config.METRICS_HOST}:${config.METRICS_PORT}`;
    const listener = await startMetricsServer(config, telemetry).catch((e: unknown) => {
      throw new StartupError(
        `cannot listen for metrics on ${where} (${(e as NodeJS.ErrnoException).code ?? e}): set METRICS_PORT`,
      );
    });
    closeListener = listener.close;
    logger.info({ metrics: `http://${where}/metrics` }, 'metrics listener ready');
  }
  return async () => {
    await closeListener();
    await tracing?.shutdown().catch(() => {});
  };
}

/** Log lines are written asynchronously: write out what is buffered, then exit. */
async function exitFlushed(logger: Logger, code: number): Promise<never> {
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  process.exit(code);
}

/**
 * Listening on every interface without PUBLIC_BASE_URL makes every emitted URL (signed links,
 * payment resources, the guide) point at 0.0.0.0, which no client can open.
 */
function warnUnreachableBaseUrl(config: Config, logger: Logger): void {
  const host = new URL(config.PUBLIC_BASE_URL).hostname;
  if (host === '0.0.0.0' || host === '[::]') {
    logger.warn(
      { url: config.PUBLIC_BASE_URL },
      'PUBLIC_BASE_URL is not set, so every URL this service emits starts with ' +
        `${config.PUBLIC_BASE_URL}, which clients cannot reach: set PUBLIC_BASE_URL to the address clients use`,
    );
  }
}

/**
 * Listens on HOST:PORT. Node's listen on a host looks it up (`dns.lookup`, even for an address) and
 * skips IPv6 link-local answers with `net.isIPv6`, whose regular expression V8 compiles at its first
 * use: ~15-20 ms of the main thread at load, on the path to the first healthy answer (issue 25). On
 * an IPv4 address (the default 127.0.0.1, or 0.0.0.0) the socket is bound here with
 * `net.BoundSocket` (Node 24.19+: no lookup; bind errors are thrown here with the same codes) and
 * Node's listen adopts it. A name (`localhost`: Fastify's two bindings), an IPv6 address or an
 * older Node listens as before.
 */
async function listen(app: Awaited<ReturnType<typeof buildApp>>, config: Config): Promise<void> {
  const Bound = (net as { BoundSocket?: typeof net.BoundSocket }).BoundSocket;
  let handle: net.BoundSocket | undefined;
  try {
    if (Bound && net.isIPv4(config.HOST))
      handle = new Bound({ host: config.HOST, port: config.PORT });
    await app.listen({ port: config.PORT, host: config.HOST, ...(handle && { handle }) });
  } catch (e) {
    // a handle Fastify never passed on (its ready failed) is still ours to close
    if (handle && !app.server.listening) {
      try {
        handle.close();
      } catch {
        // adopted after all
      }
    }
    throw listenError(config, e);
  }
}

function listenError(config: Config, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const where = `${config.HOST}:${config.PORT}`;
  if (code === 'EADDRINUSE') {
    return new StartupError(`${where} is already in use: stop the other process or set PORT`);
  }
  if (code === 'EACCES') {
    return new StartupError(`not allowed to listen on ${where}: use a PORT above 1023`);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new StartupError(`HOST ${config.HOST} is not an address of this machine`);
  }
  return e as Error;
}

/** Errors an operator fixes by changing the setup, said in one line (no stack trace). */
function operatorMessage(err: unknown): string | undefined {
  if (err instanceof ConfigError || err instanceof StartupError) return err.message;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'ETIMEDOUT') {
    return `cannot reach the database at DATABASE_URL (${e.code}${e.address ? ` ${e.address}:${e.port}` : ''})`;
  }
  if (e?.code === 'EACCES' || e?.code === 'EROFS') {
    return `cannot write ${e.path ?? 'the data directory'} (${e.code}): check DATA_DIR and its owner`;
  }
  // Postgres: bad password, unknown database or role
  if (e?.code === '28P01' || e?.code === '3D000' || e?.code === '28000') {
    return `the database refused the connection: ${e.message}`;
  }
  return undefined;
}

const [command = 'serve', ...rest] = process.argv.slice(2);
main(command, rest).catch((err: unknown) => {
  const message = operatorMessage(err);
  console.error(message ? `error: ${message}` : err);
  process.exit(1);
});
