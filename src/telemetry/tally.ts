/**
 * Counters and histograms kept in plain maps: what a request, a payment or a scan costs is a map
 * lookup and a few additions (about 0.2 µs; prom-client's labelled instruments hash their labels
 * on every call, 0.5 to 1 µs each). They become Prometheus metrics only when scraped: `metric()`
 * is the shape prom-client's registry reads (`get()` giving name, help, type and values), so
 * prom-client itself loads only once metrics are exposed (./metrics.ts).
 */

export interface MetricValue {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
}

export interface CollectedMetric {
  name: string;
  get(): {
    name: string;
    help: string;
    type: 'counter' | 'histogram';
    values: MetricValue[];
    aggregator: 'sum';
  };
}

const zip = (names: readonly string[], values: readonly string[]) => {
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = values[i]!));
  return out;
};

type Label = string | number;

/**
 * Series by label values through nested maps, one level per label: no key string is built on
 * the hot path (a number label, like a status code, is a key as it is).
 */
class SeriesIndex<E> {
  private readonly root = new Map<Label, unknown>();
  readonly all: E[] = [];

  constructor(
    private readonly depth: number,
    private readonly create: (labels: string[]) => E,
  ) {}

  get(labels: readonly Label[]): E {
    let m = this.root;
    for (let i = 0; i < this.depth - 1; i++) {
      let next = m.get(labels[i]!) as Map<Label, unknown> | undefined;
      if (!next) m.set(labels[i]!, (next = new Map()));
      m = next;
    }
    let e = m.get(labels[this.depth - 1]!) as E | undefined;
    if (!e) {
      e = this.create(labels.map(String));
      m.set(labels[this.depth - 1]!, e);
      this.all.push(e);
    }
    return e;
  }
}

export class CounterTally {
  private readonly values: SeriesIndex<{ labels: string[]; value: number }>;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    this.values = new SeriesIndex(labelNames.length, (labels) => ({ labels, value: 0 }));
  }

  inc(labels: readonly Label[], by = 1): void {
    this.values.get(labels).value += by;
  }

  metric(): CollectedMetric {
    return {
      name: this.name,
      get: () => ({
        name: this.name,
        help: this.help,
        type: 'counter',
        aggregator: 'sum',
        values: this.values.all.map((e) => ({
          labels: zip(this.labelNames, e.labels),
          value: e.value,
        })),
      }),
    };
  }
}

interface Series {
  labels: string[];
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

export class HistogramTally {
  private readonly series: SeriesIndex<Series>;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    this.series = new SeriesIndex(labelNames.length, (labels) => ({
      labels,
      buckets: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
    }));
  }

  observe(labels: readonly Label[], value: number): void {
    const s = this.series.get(labels);
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    s.buckets[i]!++;
    s.sum += value;
    s.count++;
  }

  metric(): CollectedMetric {
    return {
      name: this.name,
      get: () => {
        const values: MetricValue[] = [];
        for (const s of this.series.all) {
          const labels = zip(this.labelNames, s.labels);
          let cumulative = 0;
          for (let i = 0; i <= this.bounds.length; i++) {
            cumulative += s.buckets[i]!;
            const le = i < this.bounds.length ? String(this.bounds[i]) : '+Inf';
            values.push({
              metricName: `${this.name}_bucket`,
              labels: { le, ...labels },
              value: cumulative,
            });
          }
          values.push({ metricName: `${this.name}_sum`, labels, value: s.sum });
          values.push({ metricName: `${this.name}_count`, labels, value: s.count });
        }
        return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
      },
    };
  }
}
