import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/telemetry/metrics.js';

describe('request metrics', () => {
  it('count by method, route and status, and bucket latencies cumulatively (le inclusive)', async () => {
    const m = new Metrics();
    m.httpRequest('GET', '/api/v1/search', 200, 0.005);
    m.httpRequest('GET', '/api/v1/search', 200, 0.7);
    m.httpRequest('GET', '/api/v1/search', 404, 40);
    m.httpRequest('POST', '/api/v1/items', 402, 0.02);
    const lines = (await m.exposition()).body.split('\n');
    const value = (prefix: string) => {
      const line = lines.find((l) => l.startsWith(`${prefix} `));
      return line === undefined ? undefined : Number(line.slice(prefix.length + 1));
    };
    const search = 'method="GET",route="/api/v1/search"';
    expect(value(`marketplace_http_requests_total{${search},status="200"}`)).toBe(2);
    expect(value(`marketplace_http_requests_total{${search},status="404"}`)).toBe(1);
    expect(
      value('marketplace_http_requests_total{method="POST",route="/api/v1/items",status="402"}'),
    ).toBe(1);
    const bucket = (le: string) =>
      value(`marketplace_http_request_duration_seconds_bucket{le="${le}",${search}}`);
    expect(bucket('0.005')).toBe(1);
    expect(bucket('0.5')).toBe(1);
    expect(bucket('1')).toBe(2);
    expect(bucket('30')).toBe(2);
    expect(bucket('+Inf')).toBe(3);
    expect(value(`marketplace_http_request_duration_seconds_count{${search}}`)).toBe(3);
    expect(value(`marketplace_http_request_duration_seconds_sum{${search}}`)).toBeCloseTo(40.705);
    expect(lines).toContain('# TYPE marketplace_http_request_duration_seconds histogram');
    expect(lines).toContain('# TYPE marketplace_http_requests_total counter');
  });
});
