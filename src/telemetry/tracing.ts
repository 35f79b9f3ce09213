import type { Config } from '../config.js';

/**
 * OpenTelemetry tracing, off by default (docs/operating.md, "Metrics and traces"). When the
 * standard OTEL_* environment turns it on, `startTracing` loads the SDK (./otel.ts, a dynamic
 * import: with tracing off none of it is loaded, so start time and memory do not grow) and
 * returns this handle; every instrumentation point takes it as optional.
 */
export interface Tracing {
  /** Runs `fn` in a new span, a child of the active one; an error marks the span and rethrows. */
  span<T>(
    name: string,
    attributes: Record<string, string | number>,
    fn: () => Promise<T>,
  ): Promise<T>;
  /** Spans for every database statement of the postgres.js client this handle runs. */
  instrumentSql(sql: object): void;
  /** The W3C trace context of the active span, as request headers (`traceparent`). */
  inject(headers: Record<string, string>): void;
  /** A server span per request of a Fastify app, a child of the caller's `traceparent`. */
  requestHooks(): {
    onRequest(request: unknown, reply: unknown, done: () => void): void;
    onResponse(request: unknown, reply: unknown, done: () => void): void;
  };
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Exports what is buffered and stops; undoes every instrumentation. */
  shutdown(): Promise<void>;
}

export type TracingConfig = Pick<
  Config,
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_TRACES_EXPORTER'
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_HEADERS'
  | 'OTEL_SERVICE_NAME'
>;

/** True when the OTEL_* settings ask for traces: an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp`. */
export function tracingWanted(c: TracingConfig): boolean {
  if (c.OTEL_SDK_DISABLED || c.OTEL_TRACES_EXPORTER === 'none') return false;
  return (
    c.OTEL_TRACES_EXPORTER === 'otlp' ||
    c.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined
  );
}

let started: Promise<Tracing> | undefined;

/**
 * Starts tracing for this process once (the tracer provider is process-wide): later calls get the
 * same handle. Undefined when the settings leave tracing off.
 */
export async function startTracing(
  c: TracingConfig,
  serviceName = 'artifact-marketplace',
): Promise<Tracing | undefined> {
  if (!tracingWanted(c)) return undefined;
  started ??= import('./otel.js').then((m) => {
    const tracing = m.startOtel(c, serviceName);
    return {
      ...tracing,
      async shutdown() {
        started = undefined;
        await tracing.shutdown();
      },
    };
  });
  return started;
}
