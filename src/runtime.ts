import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainFacilitator } from './chain/chain-facilitator.js';
import { Relayer } from './chain/clients.js';
import { payoutAddressing, payoutTermsOf } from './chain/payout-address.js';
import { RpcPayoutRail } from './chain/payout-rail-rpc.js';
import type { Config } from './config.js';
import { openDatabase, type Database, type OpenOptions } from './db/index.js';
import { migrate } from './db/migrate.js';
import type { Deps, PaymentDeps } from './deps.js';
import { toMicro } from './wire/money.js';
import { LISTING_FEE_OPERATION } from './domain/listings/listings.js';
import { listingFulfilment } from './domain/listings/listing-statement.js';
import { purgeDeleted } from './domain/listings/purge.js';
import { purgeChallenges } from './domain/auth/siwe.js';
import { ACQUIRE_OPERATION, SaleItemCache, type SaleItemChange } from './domain/orders/acquire.js';
import { purchaseFulfilment } from './domain/orders/purchase-statement.js';
import { PaymentProcessor } from './domain/payments/processor.js';
import { reconcilePayments } from './domain/payments/reconciler.js';
import { PaymentStore } from './domain/payments/store.js';
import { DevLedgerRail } from './domain/payouts/dev-ledger-rail.js';
import type { PayoutRail } from './domain/payouts/rail.js';
import { runPayouts } from './domain/payouts/payout-job.js';
import { SCAN_JOB, scanJobHandler } from './domain/scan/scan-job.js';
import { ensureVectorIndex } from './domain/search/vectors.js';
import { createEmbedder } from './embeddings/index.js';
import type { JobHandlers } from './jobs/queue.js';
import { runDueJobs, startJobRunner, WorkSignal } from './jobs/runner.js';
import { startScheduler, type PeriodicTask } from './jobs/scheduler.js';
import { createLogger } from './logger.js';
import { Attestor } from './domain/scan/attestor.js';
import { loadAdminToken, loadSecrets } from './secrets.js';
import { createBlobStore } from './storage/index.js';
import { readBacklog } from './domain/ops/backlog.js';
import { instrumentFacilitator } from './telemetry/facilitator.js';
import { Metrics } from './telemetry/metrics.js';
import { startTracing, type Tracing } from './telemetry/tracing.js';
import { HttpFacilitator, type Facilitator } from './x402/facilitator.js';
import { X402Guard } from './x402/guard.js';
import { LocalFacilitator } from './x402/local-facilitator.js';
import { paymentNetworks } from './x402/networks.js';

export interface Runtime {
  deps: Deps;
  db: Database;
  /**
   * The search index builds this start began (on a Postgres server they run in the background
   * while the service serves); settles when they are done, never rejects.
   */
  indexBuilds: Promise<void>;
  /** Runs the due background jobs now (tests and one-shot commands); returns how many ran. */
  runDueJobs(max?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens the database, applies migrations and wires the shared dependencies: the payment stack
 * (facilitator, guard, processor and every paid operation's fulfilment), storage, search and the
 * background work's handlers and tasks. Used by every process entry (serve, worker, migrate,
 * reindex, demo, mcp) and by the tests.
 */
export async function createRuntime(
  config: Config,
  opts: {
    logger?: Logger;
    migrate?: boolean;
    /** Build the missing search indexes at start (default: when migrating); reindex builds its own. */
    buildIndexes?: boolean;
    /** A person reads stderr (default: it is a terminal): a generated operator token is shown there. */
    terminal?: boolean;
  } & OpenOptions = {},
): Promise<Runtime> {
  const logger = opts.logger ?? createLogger(config);
  const tracing = await startTracing(config, config.OTEL_SERVICE_NAME);
  const db = await openDatabase(config, {
    template: opts.template,
    logger,
    ...(opts.timeouts !== undefined && { timeouts: opts.timeouts }),
  });
  tracing?.instrumentSql(db.sql);
  const stopBuilds = new AbortController();
  try {
    if (opts.migrate !== false) {
      const res = await migrate(db.sql, undefined, { logger });
      if (res.applied.length) logger.info({ applied: res.applied }, 'migrations applied');
      // Rules that differ per contract revision (payable chains) read it in SQL. Written only when
      // it changed: a start that writes nothing commits nothing (on disk, a commit waits for an
      // fsync; an upsert locks the row it finds, a write even when it changes nothing).
      const [setting] = await db.sql<{ value: string }[]>`
        select value from deployment_settings where name = 'contract_revision'`;
      if (setting?.value !== config.CONTRACT_REVISION) {
        await db.sql`
          insert into deployment_settings (name, value) values ('contract_revision', ${config.CONTRACT_REVISION})
          on conflict (name) do update set value = excluded.value`;
      }
    }
    const embedder = createEmbedder(config);
    let indexBuilds = Promise.resolve();
    if (opts.buildIndexes ?? opts.migrate !== false) {
      // the index's lines say what it is for: the vectors of this embedder, of this dimension
      const build = {
        concurrently: db.kind === 'server',
        logger: logger.child(vectorIndexMeaning(embedder)),
        signal: stopBuilds.signal,
      };
      if (db.kind === 'embedded') await ensureVectorIndex(db.sql, embedder.dimensions, build);
      else {
        // a serving fleet's writes proceed during the build, and this process serves meanwhile
        // (search is the same without the indexes, only slower): vectors.ts, index-builds.ts
        indexBuilds = ensureVectorIndex(db.sql, embedder.dimensions, {
          ...build,
          progressMs: 30_000,
        }).catch((err: unknown) => {
          if (!stopBuilds.signal.aborted)
            logger.warn({ err }, 'search index build failed: the next start tries again');
        });
      }
    }
    const secrets = await loadSecrets(config);
    const admin = await loadAdminToken(config);
    if (admin.created) {
      // The generated operator token never enters the log stream (logs are shipped and kept): the
      // log names its file (mode 0600), and a person at a terminal sees it once, on the terminal.
      logger.warn(
        { file: admin.file },
        `operator console: open ${config.PUBLIC_BASE_URL}/admin and sign in with the token ` +
          `kept in ${admin.file}`,
      );
      if (opts.terminal ?? process.stderr.isTTY)
        process.stderr.write(`\noperator console token (shown once): ${admin.token}\n\n`);
    }
    const telemetry = new Metrics({ readBacklog: () => readBacklog(db.sql), logger });
    const deps: Deps = {
      config,
      sql: db.sql,
      logger,
      embedder,
      storage: createBlobStore(config),
      secrets,
      adminToken: admin.token,
      attestor: new Attestor(secrets.attestationKey),
      work: new WorkSignal(),
      telemetry,
      ...(tracing && { tracing }),
      ...createPayments(config, db, logger, secrets, { telemetry, tracing }),
    };
    const unlisten = db.kind === 'server' ? await shareSaleItemChanges(deps) : undefined;
    return {
      deps,
      db,
      indexBuilds,
      runDueJobs: (max?: number) => runDueJobs(deps, jobHandlers(deps), max),
      async close() {
        stopBuilds.abort();
        await indexBuilds;
        await unlisten?.().catch(() => {});
        await db.close();
      },
    };
  } catch (e) {
    stopBuilds.abort();
    await db.close().catch(() => {});
    throw e;
  }
}

/**
 * What a vector index's build lines add to its name (`items_embedding_hnsw_356`): the search index
 * over listing vectors of this many dimensions, made by this embedder.
 */
export function vectorIndexMeaning(embedder: { model: string; dimensions: number }): {
  purpose: string;
  dimensions: number;
  embedder: string;
} {
  return {
    purpose: 'semantic search over listing vectors',
    dimensions: embedder.dimensions,
    embedder: embedder.model,
  };
}

/** The Postgres channel on which the processes of one deployment share sale item cache changes. */
export const SALE_ITEM_CHANNEL = 'marketplace_sale_items';

/**
 * Several replicas on one Postgres: each keeps its own acquire prompt cache (SaleItemCache), so a
 * seller's change of terms or a deletion made through one must reach the others at once, not after
 * the cache's TTL. Each invalidation is sent with NOTIFY (after the change committed) and every
 * process LISTENs (postgres.js keeps one dedicated connection for it and listens again after a
 * reconnect). The payment itself never trusts the cache (the claim re-checks the terms), so a lost
 * notice costs at most a stale prompt for the TTL. Returns what stops listening.
 */
async function shareSaleItemChanges(deps: Deps): Promise<() => Promise<void>> {
  const { sql, saleItems, logger } = deps;
  let listens = 0;
  let lost = false;
  let stopped = false;
  const listening = await sql.listen(
    SALE_ITEM_CHANNEL,
    (payload) => {
      try {
        saleItems.apply(JSON.parse(payload) as SaleItemChange);
      } catch (err) {
        logger.warn({ err }, 'ignored a malformed sale item change notice');
      }
    },
    // postgres.js listens again after its LISTEN connection dropped (a Postgres restart, a
    // failover, a killed backend): the second and later calls are recoveries
    () => {
      lost = false;
      if (++listens === 1) return;
      logger.info(
        { channel: SALE_ITEM_CHANNEL },
        'cross-replica cache invalidation listening again after its connection was lost: ' +
          "changes other replicas made meanwhile reach this replica's caches by their TTL " +
          '(30 s)',
      );
    },
  );
  onListenConnectionClosed(sql, () => {
    // once per outage: each failed reconnect closes the connection again
    if (stopped || lost) return;
    lost = true;
    logger.warn(
      { channel: SALE_ITEM_CHANNEL },
      'cross-replica cache invalidation lost its LISTEN connection: until it is back, changes ' +
        "other replicas make reach this replica's caches by their TTL (30 s); reconnecting",
    );
  });
  saleItems.broadcast = (change) => {
    sql.notify(SALE_ITEM_CHANNEL, JSON.stringify(change)).catch((err: unknown) => {
      logger.warn({ err }, 'could not tell the other replicas of a sale item change');
    });
  };
  return async () => {
    stopped = true;
    delete saleItems.broadcast;
    await listening.unlisten();
  };
}

/**
 * postgres.js keeps LISTEN on a connection pool of its own (`sql.listen.sql`, outside its typed
 * API) and reconnects it by itself without telling anyone of the loss; that pool reads its
 * `onclose` option at each close, so wrapping it hears the loss. Where the shape differs (another
 * postgres.js version) the loss goes unlogged; the recovery still is (listen's own callback).
 */
function onListenConnectionClosed(sql: Deps['sql'], heard: () => void): void {
  type Options = { onclose?: (connectionId: number) => void };
  const pool = (sql.listen as unknown as { sql?: { options?: Options } }).sql;
  const options = pool?.options;
  if (!options) return;
  const original = options.onclose;
  options.onclose = (connectionId) => {
    heard();
    original?.(connectionId);
  };
}

/**
 * The payment stack: the facilitator (HTTP when FACILITATOR_URL is set, else the built-in local
 * one), the guard, and the processor with each paid operation's one fulfilment.
 */
function createPayments(
  config: Config,
  db: Database,
  logger: Logger,
  secrets: { urlSigningKey: Buffer },
  observe: { telemetry: Metrics; tracing: Tracing | undefined },
): PaymentDeps {
  const networks = paymentNetworks(config);
  // The chain rail: one relayer key per deployment sends settlements (unless FACILITATOR_URL),
  // payout contract deployments and payouts, one transaction at a time per chain.
  const relayer =
    config.PAYMENT_RAIL === 'chain'
      ? new Relayer(privateKeyToAccount(config.RELAYER_PRIVATE_KEY as `0x${string}`), {
          base: config.RPC_URL_BASE,
          polygon: config.RPC_URL_POLYGON,
        })
      : undefined;
  const facilitator: Facilitator = config.FACILITATOR_URL
    ? new HttpFacilitator(config.FACILITATOR_URL, networks, config.FACILITATOR_TIMEOUT_MS)
    : relayer
      ? new ChainFacilitator({
          networks,
          relayer,
          confirmationTimeoutMs: config.CHAIN_CONFIRMATION_TIMEOUT_MS,
          eip6492AllowedFactories: config.EIP6492_ALLOWED_FACTORIES,
        })
      : new LocalFacilitator(db.sql, networks, {
          startBalanceMicro: toMicro(config.LOCAL_FACILITATOR_START_BALANCE_USDC),
          skewSeconds: config.X402_CLOCK_SKEW_SECONDS,
        });
  const chainPayouts = relayer
    ? new RpcPayoutRail(
        relayer,
        networks,
        payoutTermsOf(config),
        config.CHAIN_CONFIRMATION_TIMEOUT_MS,
      )
    : undefined;
  instrumentFacilitator(facilitator, observe.telemetry, observe.tracing);
  if (facilitator.kind === 'local' && db.kind === 'server') {
    logger.warn(
      'payments use the built-in local facilitator (dev ledger): no real USDC moves; set FACILITATOR_URL in production',
    );
  }
  const store = new PaymentStore(db.sql);
  const x402 = new X402Guard({ config, networks, nonces: store, secret: secrets.urlSigningKey });
  const payments = new PaymentProcessor(store, facilitator, {
    retryAfterSeconds: config.SETTLEMENT_RETRY_AFTER_SECONDS,
    staleSeconds: config.RECONCILE_STALE_SECONDS,
    chainClockGraceSeconds: config.X402_CHAIN_CLOCK_GRACE_SECONDS,
    logger,
    ...(db.openedAt && { orphanedBefore: db.openedAt }),
  });
  const addressing = payoutAddressing(config);
  payments.define(ACQUIRE_OPERATION, purchaseFulfilment(addressing));
  payments.define(LISTING_FEE_OPERATION, listingFulfilment(config, addressing));
  const platformPayTo = config.PLATFORM_PAY_TO
    ? getAddress(config.PLATFORM_PAY_TO)
    : getAddress(
        `0x${createHmac('sha256', secrets.urlSigningKey).update('platform-pay-to:v1').digest('hex').slice(0, 40)}`,
      );
  // Payout balances live where sale proceeds land: the dev ledger in the embedded default (an
  // on-chain deployment replaces this with its RPC rail).
  const payoutRail: PayoutRail =
    chainPayouts ??
    new DevLedgerRail(db.sql, {
      platformPayTo,
      startBalanceMicro: toMicro(config.LOCAL_FACILITATOR_START_BALANCE_USDC),
    });
  return {
    networks,
    facilitator,
    x402,
    payments,
    platformPayTo,
    saleItems: new SaleItemCache(),
    payoutAddressing: addressing,
    ...(chainPayouts && { chainPayouts }),
    payoutRail,
  };
}

/** Every job kind and its handler (each run a span of its own when tracing is on). */
export function jobHandlers(deps: Deps): JobHandlers {
  const handlers: JobHandlers = { [SCAN_JOB]: scanJobHandler(deps) };
  const { tracing } = deps;
  if (!tracing) return handlers;
  return Object.fromEntries(
    Object.entries(handlers).map(([kind, h]) => [
      kind,
      {
        ...h,
        run: (job) =>
          tracing.span(`job ${kind}`, { 'job.id': job.id, 'job.attempt': job.attempts }, () =>
            h.run(job),
          ),
      },
    ]),
  );
}

/** One reconciliation pass with the deployment's settings (a periodic task; tests call it too). */
export function reconcileNow(deps: Deps, staleSeconds = deps.config.RECONCILE_STALE_SECONDS) {
  return reconcilePayments(deps.payments, {
    staleSeconds,
    alertAfterSeconds: deps.config.RECONCILE_ALERT_AFTER_SECONDS,
    chainWarnSeconds: deps.config.RECONCILE_CHAIN_WARN_SECONDS,
    logger: deps.logger,
    paymentIdRetentionSeconds: deps.config.X402_PAYMENT_ID_RETENTION_SECONDS,
  });
}

/** Every periodic task: payment reconciliation, the retention purge, the payout job. */
export function periodicTasks(deps: Deps): PeriodicTask[] {
  const { config, chainPayouts } = deps;
  const chainTasks: PeriodicTask[] = chainPayouts
    ? [
        {
          name: 'payout-contracts',
          everyMs: config.PAYOUT_DEPLOY_INTERVAL_SECONDS * 1000,
          run: async () => {
            const { deployed, failed, errors } = await chainPayouts.deployMissing(deps.sql, {
              onDeployed: (sellerId) => deps.saleItems.invalidateSeller(sellerId),
            });
            if (failed) deps.logger.warn({ errors }, 'payout contract deployments failed');
            return { deployed, failed };
          },
        },
      ]
    : [];
  return [
    ...chainTasks,
    {
      name: 'reconcile',
      everyMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
      firstAfterMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
      run: async () => {
        const { completed, released, failed } = await reconcileNow(deps);
        return { completed, released, failed };
      },
    },
    {
      name: 'purge',
      everyMs: config.PURGE_INTERVAL_SECONDS * 1000,
      run: async () => ({
        ...(await purgeDeleted(deps)),
        challenges: await purgeChallenges(deps.sql),
      }),
    },
    {
      name: 'payouts',
      everyMs: config.PAYOUT_INTERVAL_SECONDS * 1000,
      firstAfterMs: config.PAYOUT_INTERVAL_SECONDS * 1000,
      run: async () => ({ ...(await runPayouts(deps)) }),
    },
  ];
}

/** The background work of a process: the job runner and the scheduler. Returns the stopper. */
export function startBackground(deps: Deps): () => Promise<void> {
  const stopJobs = startJobRunner(deps, jobHandlers(deps), deps.work);
  const stopTasks = startScheduler(periodicTasks(deps), deps.logger);
  return async () => {
    await stopJobs();
    await stopTasks();
  };
}
