import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tracing, TracingConfig } from './tracing.js';

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (./tracing.ts imports this file
 * dynamically). Spans: one server span per HTTP request (a child of the caller's `traceparent`),
 * one per database statement inside a traced operation, the facilitator's settle and
 * authorization reads (../telemetry/facilitator.ts), each background job, and every outgoing
 * fetch (undici: the HTTP facilitator, RPC nodes, the MCP server's calls to the service), which
 * carries `traceparent` onward. Exported over OTLP/HTTP (JSON) in batches.
 */
export function startOtel(c: TracingConfig, serviceName: string): Tracing {
  const base = (c.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': c.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({
          url: c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
          headers: parseHeaders(c.OTEL_EXPORTER_OTLP_HEADERS),
        }),
      ),
    ],
  });
  // the global tracer provider, the AsyncLocalStorage context manager and W3C trace context
  provider.register();
  const unregister = registerInstrumentations({
    instrumentations: [new UndiciInstrumentation()],
  });
  let unpatchSql = () => {};
  const tracer = trace.getTracer('artifact-marketplace');
  const requestSpans = new WeakMap<object, Span>();

  return {
    span(name, attributes, fn) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await fn();
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      });
    },

    instrumentSql(sql) {
      unpatchSql = instrumentPostgres(sql as PostgresSql, tracer) ?? unpatchSql;
    },

    inject(headers) {
      propagation.inject(context.active(), headers);
    },

    requestHooks() {
      return {
        onRequest(req, _reply, done) {
          const request = req as FastifyRequest;
          const route = request.routeOptions.url;
          const parent = propagation.extract(ROOT_CONTEXT, request.headers);
          const span = tracer.startSpan(
            `${request.method} ${route ?? 'unmatched'}`,
            {
              kind: SpanKind.SERVER,
              attributes: {
                'http.request.method': request.method,
                ...(route !== undefined && { 'http.route': route }),
              },
            },
            parent,
          );
          requestSpans.set(request, span);
          // Fastify runs the rest of the request from this callback: all of it is in the span.
          context.with(trace.setSpan(parent, span), done);
        },
        onResponse(req, rep, done) {
          const span = requestSpans.get(req as object);
          if (span) {
            const status = (rep as FastifyReply).statusCode;
            span.setAttribute('http.response.status_code', status);
            if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
          }
          done();
        },
      };
    },

    async flush() {
      await provider.forceFlush();
    },

    // Everything undone, so the process (a test worker running further files) is as before.
    async shutdown() {
      await provider.shutdown();
      unregister();
      unpatchSql();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** `key=value,key2=value2` (values percent-encoded), as OTEL_EXPORTER_OTLP_HEADERS has it. */
function parseHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '').split(',')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

type PostgresSql = (strings: TemplateStringsArray, ...args: unknown[]) => object;

interface PostgresQuery {
  executed: boolean;
  tagged: boolean;
  strings: readonly string[] | string;
  resolve: (x: unknown) => unknown;
  reject: (e: unknown) => unknown;
  handle: () => Promise<void>;
}

const PATCHED = Symbol.for('artifact-marketplace.otel.postgres');
const MAX_STATEMENT_CHARS = 2_000;

/**
 * postgres.js has no tracing hooks: its Query (a Promise) runs when first awaited, through
 * `handle()`, and settles through `resolve`/`reject`. The prototype's `handle` is wrapped once
 * per process so each statement run inside a traced operation is a span from send to answer.
 * Fragments (a query interpolated into another) are never handled, so never spans. The
 * statement's text is recorded without its parameters, which stay out of traces.
 */
function instrumentPostgres(
  sql: PostgresSql,
  tracer: ReturnType<typeof trace.getTracer>,
): (() => void) | undefined {
  const proto = Object.getPrototypeOf(sql`select 1`) as PostgresQuery & { [PATCHED]?: true };
  if (proto[PATCHED]) return undefined;
  proto[PATCHED] = true;
  const handle = proto.handle;
  proto.handle = function (this: PostgresQuery) {
    if (!this.executed && trace.getSpan(context.active())) {
      const text = (
        typeof this.strings === 'string' ? this.strings : this.strings.join('$?')
      ).trim();
      const verb = /^\w+/.exec(text)?.[0]?.toUpperCase() ?? 'QUERY';
      const span = tracer.startSpan(`postgresql ${verb}`, {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.query.text': text.slice(0, MAX_STATEMENT_CHARS),
        },
      });
      const { resolve, reject } = this;
      this.resolve = (x) => {
        span.end();
        return resolve(x);
      };
      this.reject = (e) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
        span.end();
        return reject(e);
      };
    }
    return handle.call(this);
  };
  return () => {
    proto.handle = handle;
    delete proto[PATCHED];
  };
}
