import type { Server } from 'node:http';
import type { Config } from '../config.js';
import type { Metrics } from '../telemetry/metrics.js';
import { bearerOk } from './plugins/observability.js';

/**
 * The separate metrics listener (METRICS_PORT on METRICS_HOST, loopback by default): only
 * `GET /metrics`, with the bearer token when METRICS_TOKEN is set. Kept off the main app so a
 * scraper never meets the public rate limits and the public port never shows the metrics.
 * Resolves once listening; the returned function closes it.
 */
export async function startMetricsServer(
  config: Pick<Config, 'METRICS_PORT' | 'METRICS_HOST' | 'METRICS_TOKEN'>,
  metrics: Metrics,
): Promise<{ server: Server; close: () => Promise<void> }> {
  const token = config.METRICS_TOKEN;
  // from node:http's CommonJS exports, not an ES import: see STATUS_CODES in ./error-handler.ts
  const server = process.getBuiltinModule('node:http').createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    if (token !== undefined && !bearerOk(token, req.headers.authorization)) {
      res
        .writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': 'Bearer realm="metrics"',
        })
        .end('{"error":"unauthorized"}');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () =>
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":"internal_error"}'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.METRICS_PORT ?? 0, config.METRICS_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
