import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/** What `TEST_TIMELINE=<file>` writes: when the run began and ended, and each file's span. */
export interface Timeline {
  tier: 'embedded' | 'postgres';
  /** Wall-clock ms (Date.now()) of vitest's run start (after the global setup) and its end. */
  start: number;
  end: number;
  /** Each file from the moment a worker took it (before its import) to its end. */
  files: { file: string; start: number; end: number; state: string }[];
}

/**
 * With `TEST_TIMELINE=<file>` set, writes when each test file ran (wall clock, from the moment a
 * worker takes it to its end: import, hooks and tests), for `tools/test-durations.ts` to make the
 * committed table the run order comes from (./duration-sequencer.ts) and to show how much of the
 * run had both workers busy. vitest's JSON reporter spans a file from its first test's start to
 * its last test's end, which leaves out the import and `beforeAll` (each file's app and database).
 * Does nothing without the variable.
 */
export default class TimelineReporter implements Reporter {
  private readonly out = process.env.TEST_TIMELINE;
  private start = 0;
  private readonly started = new Map<string, number>();
  private readonly files: Timeline['files'] = [];

  onTestRunStart(_specs: ReadonlyArray<TestSpecification>): void {
    this.start = Date.now();
  }

  onTestModuleQueued(m: TestModule): void {
    this.started.set(m.moduleId, Date.now());
  }

  onTestModuleEnd(m: TestModule): void {
    const end = Date.now();
    this.files.push({
      file: path.relative(process.cwd(), m.moduleId).split(path.sep).join('/'),
      start: this.started.get(m.moduleId) ?? end,
      end,
      state: m.state(),
    });
  }

  onTestRunEnd(): void {
    if (!this.out) return;
    const timeline: Timeline = {
      tier: process.env.TEST_TIER === 'postgres' ? 'postgres' : 'embedded',
      start: this.start,
      end: Date.now(),
      files: this.files,
    };
    writeFileSync(this.out, JSON.stringify(timeline));
  }
}
