import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    // Heavy journeys (several service processes, minutes each) run with `npm run test:heavy`.
    exclude: process.env.HEAVY_TESTS
      ? configDefaults.exclude
      : [...configDefaults.exclude, '**/*.heavy.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: every integration file boots its own in-memory PGlite.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
