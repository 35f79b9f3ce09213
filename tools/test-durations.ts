import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  DURATIONS_FILE,
  longestFirst,
  type Durations,
} from '../test/helpers/duration-sequencer.js';
import type { Timeline } from '../test/helpers/timeline-reporter.js';

/**
 * `npx tsx tools/test-durations.ts <timeline.json>...`: updates test/durations.json (the run
 * order of `npm test` and `npm run test:postgres`, test/helpers/duration-sequencer.ts) from
 * whole runs recorded with `TEST_TIMELINE=<file>` (test/helpers/timeline-reporter.ts), and prints
 * how each run used its two workers. A file's time is its median over the runs given for its
 * tier, in seconds; files measured replace their entries, files gone from test/ are dropped.
 * Only the order matters, so times from a loaded machine do (every file slows alike); regenerate
 * when files are added or one's time changes a lot (see docs/testing.md, "CI's time").
 */
const ROOT = path.resolve(import.meta.dirname, '..');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Seconds of the run with no file, one file and two or more files running at once. */
export function occupancy(t: Timeline): Record<string, number> {
  const events: [number, number][] = [];
  for (const f of t.files) events.push([f.start, 1], [f.end, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const spent = [0, 0, 0];
  let running = 0;
  let at = t.start;
  for (const [when, step] of events) {
    spent[Math.min(running, 2)]! += when - at;
    running += step;
    at = when;
  }
  spent[0]! += t.end - at;
  const firstStart = Math.min(...t.files.map((f) => f.start));
  const lastEnd = Math.max(...t.files.map((f) => f.end));
  const s = (ms: number) => +(ms / 1000).toFixed(1);
  return {
    wall_s: s(t.end - t.start),
    before_first_file_s: s(firstStart - t.start),
    after_last_file_s: s(t.end - lastEnd),
    none_running_s: s(spent[0]!),
    one_running_s: s(spent[1]!),
    two_running_s: s(spent[2]!),
    files: t.files.length,
  };
}

/**
 * The run `workers` workers make of `files` taken in this order, each worker taking the next file
 * when it is free (vitest's pool with isolate: false): seconds until the last ends, and seconds in
 * which only one worker had a file.
 */
export function simulate(
  order: readonly string[],
  seconds: Record<string, number>,
  workers = 2,
): { end_s: number; one_running_s: number } {
  const free = Array.from({ length: workers }, () => 0);
  for (const file of order) {
    const w = free.indexOf(Math.min(...free));
    free[w]! += seconds[file] ?? 0;
  }
  const end = Math.max(...free);
  const firstIdle = Math.min(...free);
  return { end_s: +end.toFixed(1), one_running_s: +(end - firstIdle).toFixed(1) };
}

function main(files: string[]): void {
  if (files.length === 0)
    throw new Error(
      'usage: tools/test-durations.ts <timeline.json>... (TEST_TIMELINE=<file> npm test)',
    );
  const table: Durations = existsSync(DURATIONS_FILE)
    ? (JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Durations)
    : { about: '', embedded: {}, postgres: {} };
  const measured: Record<'embedded' | 'postgres', Map<string, number[]>> = {
    embedded: new Map(),
    postgres: new Map(),
  };
  for (const file of files) {
    const t = JSON.parse(readFileSync(file, 'utf8')) as Timeline;
    console.log(file, t.tier, occupancy(t));
    for (const f of t.files) {
      const list = measured[t.tier].get(f.file) ?? [];
      list.push((f.end - f.start) / 1000);
      measured[t.tier].set(f.file, list);
    }
  }
  for (const tier of ['embedded', 'postgres'] as const) {
    const next: Record<string, number> = {};
    const merged = { ...table[tier] };
    for (const [file, times] of measured[tier]) merged[file] = +median(times).toFixed(1);
    for (const file of Object.keys(merged).sort())
      if (existsSync(path.join(ROOT, file))) next[file] = merged[file]!;
    table[tier] = next;
  }
  table.about =
    'Seconds each test file took (a worker taking it to its end), per tier: the run order, longest first ' +
    '(test/helpers/duration-sequencer.ts). Made by tools/test-durations.ts from TEST_TIMELINE runs; ' +
    'a loaded machine, so only the order means anything.';
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(table, null, 2)}\n`);
  // what each order would make of these times on two workers: vitest's own in a fresh clone (no
  // cache: the largest files in bytes first) and the table's (longest first)
  for (const tier of ['embedded', 'postgres'] as const) {
    const times = table[tier];
    const known = Object.keys(times);
    if (known.length === 0) continue;
    const bySize = [...known].sort(
      (a, b) => statSync(path.join(ROOT, b)).size - statSync(path.join(ROOT, a)).size,
    );
    console.log(tier, {
      by_size: simulate(bySize, times),
      longest_first: simulate(
        longestFirst(known, (f) => f, times),
        times,
      ),
      sum_s: +known.reduce((n, f) => n + times[f]!, 0).toFixed(1),
    });
  }
  console.log(
    `wrote ${path.relative(ROOT, DURATIONS_FILE)}: ${Object.keys(table.embedded).length} embedded, ${Object.keys(table.postgres).length} postgres`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename))
  main(process.argv.slice(2));
