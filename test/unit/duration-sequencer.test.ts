import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { occupancy, simulate } from '../../tools/test-durations.js';
import config from '../../vitest.config.js';
import DurationSequencer, {
  DURATIONS_FILE,
  durationsFor,
  longestFirst,
} from '../helpers/duration-sequencer.js';

const root = path.resolve(import.meta.dirname, '../..');
const spec = (file: string) => ({ moduleId: path.join(root, file) }) as TestSpecification;
const sequencer = () => new DurationSequencer({ config: { root } } as unknown as Vitest);
const names = (specs: TestSpecification[]) => specs.map((s) => path.relative(root, s.moduleId));

describe('the run order (longest first, from test/durations.json)', () => {
  const tier = process.env.TEST_TIER;
  afterEach(() => {
    if (tier === undefined) delete process.env.TEST_TIER;
    else process.env.TEST_TIER = tier;
  });

  it('puts longer files first, files the table does not know before all, equal times by name', () => {
    const table = { 'b.ts': 5, 'a.ts': 5, 'c.ts': 90, 'd.ts': 0.2 };
    const order = longestFirst(
      ['d.ts', 'a.ts', 'new-2.ts', 'c.ts', 'b.ts', 'new-1.ts'],
      (x) => x,
      table,
    );
    expect(order).toEqual(['new-1.ts', 'new-2.ts', 'c.ts', 'a.ts', 'b.ts', 'd.ts']);
  });

  it('is what npm test and npm run test:postgres run with', () => {
    expect(config.test?.sequence?.sequencer).toBe(DurationSequencer);
  });

  it("orders real files by the committed table of the run's tier", async () => {
    for (const t of ['embedded', 'postgres'] as const) {
      if (t === 'postgres') process.env.TEST_TIER = 'postgres';
      else delete process.env.TEST_TIER;
      const table = durationsFor(t);
      const known = Object.keys(table);
      expect(known.length).toBeGreaterThan(10);
      const longest = known.reduce((a, b) => (table[b]! > table[a]! ? b : a));
      const shortest = known.reduce((a, b) => (table[b]! < table[a]! ? b : a));
      const sorted = await sequencer().sort([spec(shortest), spec(longest)]);
      expect(names(sorted)).toEqual([longest, shortest]);
    }
  });

  it('reads a missing table as empty and refuses a damaged one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'durations-'));
    expect(durationsFor('embedded', path.join(dir, 'none.json'))).toEqual({});
    const both = path.join(dir, 'both.json');
    writeFileSync(
      both,
      JSON.stringify({ embedded: { 'a.ts': 1, 'b.ts': 2 }, postgres: { 'b.ts': 7 } }),
    );
    expect(durationsFor('embedded', both)).toEqual({ 'a.ts': 1, 'b.ts': 2 });
    // the Postgres tier's own time where it has one, else the embedded one
    expect(durationsFor('postgres', both)).toEqual({ 'a.ts': 1, 'b.ts': 7 });
    writeFileSync(path.join(dir, 'bad.json'), '{ "embedded": ');
    expect(() => durationsFor('embedded', path.join(dir, 'bad.json'))).toThrow(SyntaxError);
    expect(path.basename(DURATIONS_FILE)).toBe('durations.json');
  });
});

describe("a run's worker occupancy (tools/test-durations.ts)", () => {
  it('splits the run into time with no file, one file and two files running', () => {
    // 0-10 s setup; a 10-40, b 10-20, c 20-30; then 30-40 a alone; 40-45 nothing (teardown)
    const s = 1_000;
    const o = occupancy({
      tier: 'embedded',
      start: 0,
      end: 45 * s,
      files: [
        { file: 'a', start: 10 * s, end: 40 * s, state: 'passed' },
        { file: 'b', start: 10 * s, end: 20 * s, state: 'passed' },
        { file: 'c', start: 20 * s, end: 30 * s, state: 'passed' },
      ],
    });
    expect(o).toMatchObject({
      wall_s: 45,
      before_first_file_s: 10,
      after_last_file_s: 5,
      none_running_s: 15,
      one_running_s: 10,
      two_running_s: 20,
    });
  });

  it('models two workers taking the next file: a long file last leaves one worker alone', () => {
    const times = { a: 10, b: 6, c: 4 };
    expect(simulate(['b', 'c', 'a'], times)).toEqual({ end_s: 14, one_running_s: 8 });
    expect(simulate(['a', 'b', 'c'], times)).toEqual({ end_s: 10, one_running_s: 0 });
  });
});
