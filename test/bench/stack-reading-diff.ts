import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import * as here from '../../src/domain/search/stacks.js';
import { benchSetsFor, halfOf, type Half } from './relevance.js';

/**
 * `npx tsx test/bench/stack-reading-diff.ts [--base DIR] SET[:tuning|:held-out] ...`: the queries
 * of the named judgment sets whose reading of stack names differs (the stacks they name, or their
 * task text), between this build with stop 59's English readings and without them, or, with
 * --base, between this build and the worktree DIR's (two builds). It prints queries only, no
 * ranking: a check of what a change to the reading touches, to run on a held-out set without
 * reading its figures. A split set (issue11, paraphrase, fresh2) is read whole unless a half is
 * named. Nothing is read that is not named.
 */
interface Reader {
  namedStacks(text: string): number[];
  taskText(text: string): string;
}

const args = process.argv.slice(2);
const at = args.indexOf('--base');
const baseDir = at >= 0 ? args[at + 1] : undefined;
if (at >= 0 && !baseDir) usage();
const names = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
if (names.length === 0) usage();

const rule: Reader = { namedStacks: here.namedStacks, taskText: here.taskText };
const before: Reader = baseDir
  ? ((await import(pathToFileURL(resolve(baseDir, 'src/domain/search/stacks.ts')).href)) as Reader)
  : { namedStacks: (q) => here.namedStacks(q, []), taskText: (q) => here.taskText(q, []) };

// the named sets only, as a run that names them reads them (a sealed set is read only so)
const sets = benchSetsFor({ BENCH_RELEVANCE_SETS: names.map((n) => n.split(':')[0]).join(',') });
let changed = 0;
let read = 0;
for (const name of names) {
  const [setName, half] = name.split(':') as [string, Half | undefined];
  const set = sets.find((s) => s.name === setName);
  if (!set || (half !== undefined && half !== 'tuning' && half !== 'held-out')) usage(name);
  const queries = set.queries.filter((q) => half === undefined || halfOf(q) === half);
  read += queries.length;
  for (const { q } of queries) {
    const [a, b] = [before, rule].map((r) => ({
      stacks: r.namedStacks(q).join(','),
      task: r.taskText(q),
    }));
    if (a!.stacks === b!.stacks && a!.task === b!.task) continue;
    changed++;
    console.log(`${name}: ${q}`);
    console.log(`  stacks [${a!.stacks}] -> [${b!.stacks}]; task "${a!.task}" -> "${b!.task}"`);
  }
}
console.log(
  `${changed} of ${read} queries read differently (${baseDir ? `against ${baseDir}` : 'rule off -> on'})`,
);

function usage(name?: string): never {
  if (name) console.error(`unknown set or half: ${name}`);
  console.error('usage: stack-reading-diff.ts [--base DIR] SET[:tuning|:held-out] ...');
  process.exit(2);
}
