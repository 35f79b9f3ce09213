import type { Logger } from 'pino';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
} from 'prom-client';
import { RequestStats } from './request-stats.js';

/**
 * Every metric instrument of the service, in one registry per runtime (docs/operating.md,
 * "Metrics and traces", lists them). The domain sees only the narrow `Telemetry` port
 * (src/domain/ports.ts); the HTTP face records requests and payment outcomes; the gauges read
 * from the database are collected on scrape, one cheap query cached a few seconds.
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
  readonly registry = new Registry();
  private readonly http: RequestStats;
  private readonly payments: Counter<'kind' | 'result'>;
  private readonly settlement: Histogram<'network' | 'result'>;
  private readonly scans: Counter<'outcome'>;
  private readonly scanDuration: Histogram<'outcome'>;
  private readonly searchDuration: Histogram<'results'>;
  private readonly payouts: Counter<'chain' | 'result'>;
  private backlog: { at: number; reading: Promise<Backlog | undefined> } | undefined;
  private processMetrics = false;

  constructor(private readonly opts: MetricsOptions = {}) {
    const registers = [this.registry];
    const counter = <L extends string>(c: CounterConfiguration<L>) =>
      new Counter<L>({ ...c, name: PREFIX + c.name, registers });
    this.http = new RequestStats(
      this.registry,
      {
        requests: `${PREFIX}http_requests_total`,
        duration: `${PREFIX}http_request_duration_seconds`,
      },
      LATENCY_BUCKETS,
    );
    this.payments = counter({
      name: 'payments_total',
      help: 'Signed x402 requests by kind (purchase, fee, identity) and result (ok or the error code)',
      labelNames: ['kind', 'result'],
    });
    this.settlement = new Histogram({
      name: `${PREFIX}settlement_duration_seconds`,
      help: 'Verify + settle at the facilitator or chain, by network and result',
      labelNames: ['network', 'result'],
      buckets: SETTLEMENT_BUCKETS,
      registers,
    });
    this.scans = counter({
      name: 'scans_total',
      help: 'Finished scan attempts by outcome (approved, a rejection reason, or error)',
      labelNames: ['outcome'],
    });
    this.scanDuration = new Histogram({
      name: `${PREFIX}scan_duration_seconds`,
      help: 'Duration of a scan attempt, by outcome',
      labelNames: ['outcome'],
      buckets: SCAN_BUCKETS,
      registers,
    });
    this.searchDuration = new Histogram({
      name: `${PREFIX}search_duration_seconds`,
      help: 'Duration of a search in the domain (candidates and ranking), by whether it found any',
      labelNames: ['results'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.payouts = counter({
      name: 'payouts_total',
      help: 'Payout job results per chain and payout address (paid, failed, busy)',
      labelNames: ['chain', 'result'],
    });
    const backlog = () => this.readBacklog();
    new Gauge({
      name: `${PREFIX}settlements_unresolved`,
      help: 'Settlements claimed but not completed or released (settling, pending, settled)',
      registers,
      async collect() {
        const b = await backlog();
        if (b) this.set(b.unresolved);
      },
    });
    new Gauge({
      name: `${PREFIX}settlement_oldest_unresolved_age_seconds`,
      help: 'Age of the oldest unresolved settlement (0 when none)',
      registers,
      async collect() {
        const b = await backlog();
        if (b) this.set(b.oldestUnresolvedSeconds);
      },
    });
    new Gauge({
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
  }

  /** Process, heap, GC and event-loop metrics (prom-client's defaults), once per registry. */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered HTTP request (`route` is the pattern, never the raw URL). */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.record(method, route, status, seconds);
  }

  payment(kind: PaymentKind, result: string): void {
    this.payments.inc({ kind, result });
  }

  settled(network: string, result: string, seconds: number): void {
    this.settlement.observe({ network, result }, seconds);
  }

  scanned(outcome: string, seconds?: number): void {
    this.scans.inc({ outcome });
    if (seconds !== undefined) this.scanDuration.observe({ outcome }, seconds);
  }

  searched(results: number, seconds: number): void {
    this.searchDuration.observe({ results: results > 0 ? 'some' : 'none' }, seconds);
  }

  payout(chain: string, result: string, count = 1): void {
    this.payouts.inc({ chain, result }, count);
  }

  /** The Prometheus text exposition and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
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
