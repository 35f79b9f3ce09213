import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it (ids in hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

export interface OtlpReceiver {
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans arrive at /v1/traces. */
  url: string;
  spans: ReceivedSpan[];
  /** The request headers of every export (content type, the configured extra headers). */
  exports: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

/**
 * A stand-in OpenTelemetry collector on loopback speaking OTLP/HTTP with the JSON encoding
 * (POST /v1/traces, `ExportTraceServiceRequest`): every span is decoded and kept for assertions;
 * the answer is the protocol's empty `ExportTraceServiceResponse`.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const state: OtlpReceiver = { url: '', spans: [], exports: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      state.exports.push(req.headers);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
          scopeSpans: Array<{
            spans: Array<{
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              attributes?: Array<{ key: string; value: AnyValue }>;
            }>;
          }>;
        }>;
      };
      for (const rs of body.resourceSpans) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            state.spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: s.kind,
              attributes: attrs(s.attributes),
              service: String(resource['service.name']),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

function attrs(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? undefined;
  }
  return out;
}
