import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CounterTally, HistogramTally } from './tally.js';

/**
 * Every metric of the service (docs/operating.md, "Metrics and traces", lists them). The domain
 * sees only the narrow `Telemetry` port (src/domain/ports.ts); the HTTP face records requests and
 * payment outcomes. Counting is plain arithmetic (./tally.ts); prom-client, its registry and the
 * process metrics load on the first scrape or when metrics are exposed, so a process that never
 * exposes them carries none of it. The gauges read from the database are collected on scrape,
 * one cheap query cached a few seconds.
 */

/** What the database says on scrape: unresolved settlements and open jobs. */
export interface Backlog {
  unresolved: number;
  /** Age of the oldest unresolved settlement in seconds (0 when there is none). */
  oldestUnresolvedSeconds: number;
  /** Open jobs per kind and state (`queued`, `running`). */
  jobs: { kind: string; state: string; count: number }[];
}

export interface MetricsOptions {
  /** Reads the backlog (src/domain/ops/backlog.ts); undefined: the gauges stay absent. */
  readBacklog?: () => Promise<Backlog>;
  logger?: Pick<Logger, 'warn'>;
  /** How long one backlog reading serves scrapes (several scrapers, several replicas). */
  backlogCacheMs?: number;
}

/** The paid or identity request a payment outcome belongs to. */
export type PaymentKind = 'purchase' | 'fee' | 'identity';

const PREFIX = 'marketplace_';
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SETTLEMENT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30, 60];
const SCAN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class Metrics {
  private readonly httpRequests = new CounterTally(
    `${PREFIX}http_requests_total`,
    'HTTP requests answered, by method, route pattern and status code',
    ['method', 'route', 'status'],
  );
  private readonly httpDuration = new HistogramTally(
    `${PREFIX}http_request_duration_seconds`,
    'Time from request to response, by method and route pattern',
    ['method', 'route'],
    LATENCY_BUCKETS,
  );
  private readonly payments = new CounterTally(
    `${PREFIX}payments_total`,
    'Signed x402 requests by kind (purchase, fee, identity) and result (ok or the error code)',
    ['kind', 'result'],
  );
  private readonly settlement = new HistogramTally(
    `${PREFIX}settlement_duration_seconds`,
    'Verify + settle at the facilitator or chain, by network and result',
    ['network', 'result'],
    SETTLEMENT_BUCKETS,
  );
  private readonly scans = new CounterTally(
    `${PREFIX}scans_total`,
    'Finished scan attempts by outcome (approved, a rejection reason, error, processing_error)',
    ['outcome'],
  );
  private readonly scanDuration = new HistogramTally(
    `${PREFIX}scan_duration_seconds`,
    'Duration of a decided scan, by outcome',
    ['outcome'],
    SCAN_BUCKETS,
  );
  private readonly searchDuration = new HistogramTally(
    `${PREFIX}search_duration_seconds`,
    'Duration of a search in the domain (candidates and ranking), by whether it found any',
    ['results'],
    LATENCY_BUCKETS,
  );
  private readonly payouts = new CounterTally(
    `${PREFIX}payouts_total`,
    'Payout job results per chain and payout address (paid, failed, busy)',
    ['chain', 'result'],
  );
  private backlog: { at: number; reading: Promise<Backlog | undefined> } | undefined;
  private registryLoad: Promise<Registry> | undefined;
  private processMetrics = false;
  private prom: typeof import('prom-client') | undefined;

  constructor(private readonly opts: MetricsOptions = {}) {}

  /** One answered HTTP request (`route` is the pattern, never the raw URL). */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc([method, route, status]);
    this.httpDuration.observe([method, route], seconds);
  }

  payment(kind: PaymentKind, result: string): void {
    this.payments.inc([kind, result]);
  }

  settled(network: string, result: string, seconds: number): void {
    this.settlement.observe([network, result], seconds);
  }

  scanned(outcome: string, seconds?: number): void {
    this.scans.inc([outcome]);
    if (seconds !== undefined) this.scanDuration.observe([outcome], seconds);
  }

  searched(results: number, seconds: number): void {
    this.searchDuration.observe([results > 0 ? 'some' : 'none'], seconds);
  }

  payout(chain: string, result: string, count = 1): void {
    this.payouts.inc([chain, result], count);
  }

  /**
   * Process, heap, GC and event-loop metrics (prom-client's defaults) from now on: called by the
   * process entry when metrics are exposed, so the event-loop monitor runs only then.
   */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    // a registry that cannot load is the scrape's failure to answer (exposition awaits the same
    // load), never an unhandled rejection that would end the process
    this.registry().then(
      (registry) => this.prom?.collectDefaultMetrics({ register: registry }),
      () => undefined,
    );
  }

  /** The Prometheus text exposition and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    const registry = await this.registry();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private registry(): Promise<Registry> {
    // prom-client is CommonJS: its exports object is the namespace's default, which Node's import
    // and the bundle's chunk (scripts/build.mjs, which exports nothing else) both give
    this.registryLoad ??= import('prom-client').then((prom) => this.buildRegistry(prom.default));
    return this.registryLoad;
  }

  private buildRegistry(prom: typeof import('prom-client')): Registry {
    this.prom = prom;
    const registry = new prom.Registry();
    for (const tally of [
      this.httpRequests,
      this.httpDuration,
      this.payments,
      this.settlement,
      this.scans,
      this.scanDuration,
      this.searchDuration,
      this.payouts,
    ]) {
      registry.registerMetric(tally.metric() as never);
    }
    const registers = [registry];
    const backlog = () => this.readBacklog();
    new prom.Gauge({
      name: `${PREFIX}settlements_unresolved`,
      help: 'Payments not resolved: money may have moved without an order (settling, pending, settled, or failed at settlement while the transfer may still be mined)',
      registers,
      async collect() {
        const b = await backlog();
        if (b) this.set(b.unresolved);
      },
    });
    new prom.Gauge({
      name: `${PREFIX}settlement_oldest_unresolved_age_seconds`,
      help: 'Age of the oldest unresolved settlement (0 when none)',
      registers,
      async collect() {
        const b = await backlog();
        if (b) this.set(b.oldestUnresolvedSeconds);
      },
    });
    new prom.Gauge({
      name: `${PREFIX}jobs`,
      help: 'Open background jobs by kind and state (queued, running)',
      labelNames: ['kind', 'state'],
      registers,
      async collect() {
        const b = await backlog();
        if (!b) return;
        this.reset();
        for (const j of b.jobs) this.set({ kind: j.kind, state: j.state }, j.count);
      },
    });
    return registry;
  }

  private readBacklog(): Promise<Backlog | undefined> {
    const read = this.opts.readBacklog;
    if (!read) return Promise.resolve(undefined);
    const now = Date.now();
    if (this.backlog && now - this.backlog.at < (this.opts.backlogCacheMs ?? 5_000)) {
      return this.backlog.reading;
    }
    const reading = read().catch((err: unknown) => {
      this.opts.logger?.warn({ err }, 'metrics: could not read the backlog from the database');
      return undefined;
    });
    this.backlog = { at: now, reading };
    return reading;
  }
}
