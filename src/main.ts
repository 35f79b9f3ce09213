import cliProgress from 'cli-progress';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { loadDemoData } from './domain/discovery/demo.js';
import { reindexAll } from './domain/search/index-item.js';
import { ensureVectorIndex } from './domain/search/vectors.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { unresolvedPayments } from './domain/payments/reconciler.js';
import { moderateCommand } from './domain/feedback/moderation.js';
import { createRuntime, startBackground } from './runtime.js';

/**
 * Process entry: `serve` (default), `worker`, `migrate`, `reindex`, `demo`, `unresolved-payments`,
 * `moderate`.
 */
async function main(command: string, args: string[]): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);

  switch (command) {
    case 'migrate': {
      const db = await openDatabase(config);
      try {
        const res = await migrate(db.sql);
        logger.info({ applied: res.applied, already: res.skipped.length }, 'migrations done');
      } finally {
        await db.close();
      }
      return;
    }
    case 'reindex': {
      // Recompute listing vectors after a provider or dimension change; `--force` redoes all.
      const runtime = await createRuntime(config, { logger });
      const { sql, embedder } = runtime.deps;
      const bar = new cliProgress.SingleBar(
        {
          format: 'reindex [{bar}] {percentage}% | {value}/{total} listings | {duration_formatted}',
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      );
      try {
        let started = false;
        const res = await reindexAll(sql, embedder, {
          force: args.includes('--force'),
          onProgress: ({ done, total }) => {
            if (!started) bar.start(total, 0);
            started = true;
            bar.setTotal(total);
            bar.update(done);
          },
        });
        bar.stop();
        await ensureVectorIndex(sql, embedder.dimensions);
        logger.info(
          { reindexed: res.done, model: embedder.model, dimensions: embedder.dimensions },
          'reindex done',
        );
      } finally {
        bar.stop();
        await runtime.close();
      }
      return;
    }
    case 'unresolved-payments': {
      // Operators: settlements still open after RECONCILE_ALERT_AFTER_SECONDS (or --all), one JSON
      // line each, for a look at the chain (money may have moved without an order).
      const runtime = await createRuntime(config, { logger });
      try {
        const age = args.includes('--all') ? 0 : config.RECONCILE_ALERT_AFTER_SECONDS;
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
      // verdicts: `moderate approve <id>...`, `moderate reject <id>...`.
      const runtime = await createRuntime(config, { logger });
      try {
        const { lines, ok } = await moderateCommand(runtime.deps.sql, args);
        for (const line of lines) process.stdout.write(`${line}\n`);
        if (!ok) process.exitCode = 1;
      } finally {
        await runtime.close();
      }
      return;
    }
    case 'demo':
    case 'serve': {
      const runtime = await createRuntime(config, { logger });
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
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      // Jobs (scans) and periodic tasks (reconciliation, purge) in this process unless workers run
      // separately.
      if (config.IN_PROCESS_WORKER) stoppers.push(startBackground(runtime.deps));
      await app.listen({ port: config.PORT, host: config.HOST });
      logger.info(
        { url: config.PUBLIC_BASE_URL, database: runtime.db.kind },
        'marketplace listening',
      );
      return;
    }
    case 'worker': {
      // A separate worker process: scan jobs and the retention cleanup, claimed with SKIP LOCKED.
      const runtime = await createRuntime(config, { logger });
      const stop = startBackground(runtime.deps);
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'worker stopping');
        await stop();
        await runtime.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      logger.info({ database: runtime.db.kind }, 'worker started');
      return;
    }
    default:
      throw new Error(
        `unknown command "${command}" (serve, worker, migrate, reindex, demo, unresolved-payments, moderate) ${args.join(' ')}`,
      );
  }
}

const [command = 'serve', ...rest] = process.argv.slice(2);
main(command, rest).catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
