import { expect, it, vi } from 'vitest';
import { Metrics } from '../../src/telemetry/metrics.js';

// prom-client that cannot be loaded (a broken install, a bundle that lost its exports)
vi.mock('prom-client', () => {
  throw new Error('prom-client could not be loaded');
});

it('a scrape whose prom-client cannot load fails that scrape alone, never the process', async () => {
  const metrics = new Metrics();
  // what the /metrics route does on its first scrape
  metrics.collectProcessMetrics();
  await expect(metrics.exposition()).rejects.toThrow(/mock/);
  // an unhandled rejection (the process-metrics start's) would end the service; vitest fails on it
  await new Promise((resolve) => setTimeout(resolve, 50));
});
