import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** test/durations.json: seconds each test file took, per tier (made by tools/test-durations.ts). */
export interface Durations {
  about: string;
  embedded: Record<string, number>;
  postgres: Record<string, number>;
}

export const DURATIONS_FILE = path.resolve(import.meta.dirname, '../durations.json');

/**
 * Runs the longest files first, by the committed table of each file's measured time
 * (test/durations.json, per tier), so that the two workers, each taking the next file in this
 * order when it is free, end close together instead of one running the last long file alone.
 * vitest's own order needs its cache of the last run's times (node_modules/.vite), which a fresh
 * clone (CI) does not have: without it vitest runs the largest files (in bytes) first. A file the
 * table does not know yet (new, renamed) is taken to be long and runs first; equal times keep the
 * path order, so the order is the same on every machine.
 */
export default class DurationSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const table = durationsFor(process.env.TEST_TIER === 'postgres' ? 'postgres' : 'embedded');
    return Promise.resolve(
      longestFirst(files, (f) => path.relative(root, f.moduleId).split(path.sep).join('/'), table),
    );
  }
}

/**
 * `items` by their time in `table` (seconds, keyed by `name`), longest first; an item the table
 * does not know first of all; equal times in name order.
 */
export function longestFirst<T>(
  items: readonly T[],
  name: (item: T) => string,
  table: Record<string, number>,
): T[] {
  const keyed = items.map((item) => {
    const key = name(item);
    return { item, key, seconds: table[key] ?? Number.POSITIVE_INFINITY };
  });
  keyed.sort((a, b) => {
    if (a.seconds !== b.seconds) return b.seconds - a.seconds;
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  return keyed.map((k) => k.item);
}

/**
 * The tier's table; on the Postgres tier a file it has no time for takes its embedded time (the
 * same tests, another database). A missing file reads as empty (every file then unknown).
 */
export function durationsFor(
  tier: 'embedded' | 'postgres',
  file = DURATIONS_FILE,
): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const table = JSON.parse(text) as Partial<Durations>;
  return tier === 'postgres' ? { ...table.embedded, ...table.postgres } : { ...table.embedded };
}
