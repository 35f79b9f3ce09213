import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/telemetry/tracing.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp } from '../helpers/mcp.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { listItem } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Tracing on, as an operator turns it on (OTEL_EXPORTER_OTLP_ENDPOINT), exporting to a loopback
 * collector that speaks OTLP/HTTP. The tracer provider is process-wide: the app's close shuts it
 * down and undoes every instrumentation, so the files after this one in the worker see none.
 */
let t: ListeningTestContext;
let otlp: OtlpReceiver;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  t = await startListeningTestApp({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
    OTEL_SERVICE_NAME: 'marketplace-under-test',
    SCAN_RETRY_BASE_MS: '0',
  });
});
afterAll(async () => {
  await t?.runtime.deps.tracing?.shutdown(); // idempotent
  await t?.close();
  await otlp?.close();
});

/** Exports what the app buffered, then the spans of one trace. */
async function spansOf(traceId: string): Promise<ReceivedSpan[]> {
  await t.runtime.deps.tracing!.flush();
  return otlp.spans.filter((s) => s.traceId === traceId);
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

describe('OpenTelemetry tracing', () => {
  it('is on with the OTEL_* settings; without METRICS_TOKEN /metrics opens only to the operator token', async () => {
    expect(t.runtime.deps.tracing).toBeDefined();
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(401);
    const operator = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${t.runtime.deps.adminToken}` },
    });
    expect(operator.statusCode).toBe(200);
    expect(operator.body).toContain('marketplace_http_requests_total');
  });

  it('carries an MCP tool call’s trace context into the service: request and statement spans are its children', async () => {
    const mcp = await connectMcp(t.base, { wallet: false, tracing: t.runtime.deps.tracing! });
    try {
      const result = await mcp.call('search_items', { q: 'todo api' });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    await t.runtime.deps.tracing!.flush();
    const tool = otlp.spans.find((s) => s.name === 'tools/call search_items');
    expect(tool).toBeDefined();
    const { traceId, spanId } = tool!;
    const spans = await spansOf(traceId);
    const server = spans.find((s) => s.name === 'GET /api/v1/search');
    expect(server, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(server!.kind).toBe(2); // SERVER
    expect(server!.service).toBe('marketplace-under-test');
    expect(server!.attributes['http.route']).toBe('/api/v1/search');
    expect(server!.attributes['http.response.status_code']).toBe(200);
    // the MCP client's fetch is the server span's parent, and the tool call is the fetch's
    const fetchSpan = spans.find((s) => s.spanId === server!.parentSpanId);
    expect(fetchSpan?.kind).toBe(3); // CLIENT
    expect(fetchSpan?.parentSpanId).toBe(spanId);
    const statements = childrenOf(spans, server!).filter((s) => s.name.startsWith('postgresql'));
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      expect(s.attributes['db.system.name']).toBe('postgresql');
      // the statement's text, never its parameters
      expect(String(s.attributes['db.query.text'])).not.toContain('todo api');
    }
    expect(otlp.exports[0]?.['x-collector-key']).toBe('k=1');
  });

  it('traces a paid request down to the facilitator, and a scan job with its statements', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const { header } = await signPayment(newWallet(), required, required.accepts[0]!);
    // a queued fault takes the stepwise path, where the facilitator is called
    (t.runtime.deps.facilitator as LocalFacilitator).injectFault({
      op: 'settle',
      outcome: 'failed',
    });
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(res.json().error).toBe('payment_settlement_failed');
    await t.runtime.deps.tracing!.flush();
    const settle = otlp.spans.find((s) => s.name === 'facilitator settle');
    const parent = otlp.spans.find((s) => s.spanId === settle?.parentSpanId);
    expect(parent?.name).toBe('POST /api/v1/items/:uuid/acquire');
    expect(parent?.kind).toBe(2); // SERVER
    expect(parent?.attributes['http.response.status_code']).toBe(402);
    expect(settle?.attributes['x402.network']).toBe('eip155:8453');

    await listItem(t, newWallet(), { bytes: zipOf(uniqueProject()) });
    expect(await t.runtime.runDueJobs()).toBe(1);
    await t.runtime.deps.tracing!.flush();
    const job = otlp.spans.find((s) => s.name === 'job scan');
    expect(job).toBeDefined();
    const jobSpans = otlp.spans.filter((s) => s.traceId === job!.traceId);
    expect(childrenOf(jobSpans, job!).some((s) => s.name === 'postgresql UPDATE')).toBe(true);
  });

  it('undoes itself on shutdown: outgoing fetches carry no traceparent afterwards', async () => {
    const tracing = t.runtime.deps.tracing!;
    const headersSeen: Array<string | undefined> = [];
    const probe = createServer((req, res) => {
      headersSeen.push(req.headers.traceparent as string | undefined);
      res.end('ok');
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
    try {
      await tracing.span('before shutdown', {}, async () => void (await fetch(url)).text());
      await tracing.shutdown();
      await trace.getTracer('after').startActiveSpan('after shutdown', async (span) => {
        await (await fetch(url)).text();
        span.end();
      });
    } finally {
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    }
    expect(headersSeen[0]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(headersSeen[1]).toBeUndefined();
    expect(await startTracing({ OTEL_SDK_DISABLED: false })).toBeUndefined();
  });
});
