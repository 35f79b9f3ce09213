import { configDefaults, defineConfig } from 'vitest/config';
import DurationSequencer from './test/helpers/duration-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    // Heavy journeys (several service processes, minutes each) run with `npm run test:heavy`.
    exclude: process.env.HEAVY_TESTS
      ? configDefaults.exclude
      : [...configDefaults.exclude, '**/*.heavy.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // initdb and the migrations once per run (cached between runs): each file's database is a copy.
    globalSetup: ['./test/helpers/global-setup.ts'],
    pool: 'forks',
    // Two cores: two workers, each running its files one after another in one process, so the
    // service's modules are loaded once per worker rather than once per file. Every file still
    // builds its own app and database (test/helpers/app.ts), so files never share rows.
    maxWorkers: 2,
    isolate: false,
    // Each worker opens and drops one embedded database per file: on Node 24's V8 (13.6) that can
    // abort it (a wasm-to-JS wrapper freed twice by the wasm code GC, docs/testing.md "A V8 fatal
    // under PGlite churn"). Without the wasm code GC the double free cannot happen.
    execArgv: ['--no-wasm-code-gc'],
    // Longest files first, from the committed table test/durations.json (a fresh clone has no
    // vitest cache of the last run's times): the two workers then end close together.
    sequence: { sequencer: DurationSequencer },
    // the timeline reporter writes each file's span only with TEST_TIMELINE=<file> (docs/testing.md)
    reporters: [
      'default',
      './test/helpers/summary-reporter.ts',
      './test/helpers/timeline-reporter.ts',
    ],
  },
});
