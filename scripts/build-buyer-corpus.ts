/**
 * Builds the buyer-corpus table (assets/search/buyer-corpus.txt) from a corpus of buyer queries
 * labelled with the task-lexicon concept each means (scripts/corpus/buyer-queries.txt): what a buyer
 * (an LLM agent, or a person) writes for a task, in their words. Nothing here runs at install or
 * run time; the service reads only the committed table.
 *
 *   npx tsx scripts/build-buyer-corpus.ts import [--out f] <queries.txt ...>  (writes the data file)
 *   npx tsx scripts/build-buyer-corpus.ts build [out]                           (writes the table)
 *   npx tsx scripts/build-buyer-corpus.ts cv [queries.txt]          (5-fold cross-validation)
 *   npx tsx scripts/build-buyer-corpus.ts diag                      (round 1 against both: cap, CV)
 *   npx tsx scripts/build-buyer-corpus.ts settings [out]            (writes the settings table)
 *   npx tsx scripts/build-buyer-corpus.ts tasks [out]               (writes the task-share table)
 *   npx tsx scripts/build-buyer-corpus.ts contexts                  (queries naming only a context)
 *
 * import: concatenates files of `concept<TAB>query` lines and cleans them mechanically only (a
 * line whose concept the lexicon lacks, an empty or malformed line, a repeated line are dropped;
 * queries are never edited), sorted, under the header below. One of the files can be an earlier
 * import (the data file): its header lines are skipped and what it says it read is carried over,
 * so a new round is imported with the rounds before it. build: see buildBuyerTable. settings: see
 * learnSettings (from the data file and round 3's files, cleaned as import cleans them). tasks: see
 * learnTaskShares (from the same queries).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stem, tokenize } from '../src/embeddings/builtin.js';
import { isStackWord } from '../src/domain/search/stacks.js';
import { lexiconConcepts, taskLexicon } from '../src/domain/search/task-lexicon.js';
import { neighbourStems } from '../src/domain/search/buyer-neighbours.js';

const DATA = new URL('./corpus/buyer-queries.txt', import.meta.url).pathname;
const ROUND1 = new URL('./corpus/buyer-queries-round1.txt', import.meta.url).pathname;
const TABLE = new URL('../assets/search/buyer-corpus.txt', import.meta.url).pathname;
const SETTINGS_TABLE = new URL('../assets/search/concept-settings.txt', import.meta.url).pathname;
const TASKS_TABLE = new URL('../assets/search/concept-tasks.txt', import.meta.url).pathname;
const NEIGHBOURS_TABLE = new URL('../assets/search/buyer-neighbours.txt', import.meta.url).pathname;
/** Round 3's files, kept as written (stop 40): the settings table reads them with the data file. */
const ROUND3 = ['queries-c1.txt', 'queries-c2.txt', 'queries-c3.txt'].map(
  (f) => new URL(`./corpus/${f}`, import.meta.url).pathname,
);

/** What each round's writers were given and asked, for the data file's header. */
const ROUNDS: Record<number, string[]> = {
  2: [
    '# Round 2 (queries-b1..b3, three new writers, each on another third, 2026-11-26 23:40 to',
    '# 2026-11-27 00:08 UTC, blind to round 1 too): 12-14 per concept, half agent-style task',
    '# sentences of 12-30 words, half plain queries of 2-5 words, two thirds without the',
    "# concept name's words.",
  ],
  3: [
    '# Round 3 (queries-c1..c3, three new writers, each on another third, 2026-11-27 05:40 to',
    '# 05:53 UTC, blind to rounds 1-2 too): 9 per concept, 4 describing the effect or situation',
    '# in everyday words and metaphors, 2 naming a language or framework and the need in plain',
    '# words, 2 agent-style task sentences of 12-30 words, 1 terse query of 2-5 words; two thirds',
    "# without a word of the concept's name or entries.",
  ],
};

/** The data file's header, with the lines of each round its sources hold. */
function header(rounds: Set<number>): string[] {
  return [
    '# Buyer queries labelled with the task-lexicon concept each means (issue 30), one a line:',
    '# concept<TAB>query. Written by engineers of the project (LLM agents, as our buyers are), three',
    '# a round, each given a third of the lexicon (concept names and entries), blind to the code and',
    '# to every relevance judgment set (their listings and queries). Round 1 (queries-1..3,',
    '# 2026-11-26 22:20-23:05 UTC): 14-18 queries per concept, at least half in effect and situation',
    '# wording.',
    ...[...rounds].sort().flatMap((r) => ROUNDS[r] ?? []),
    '# Cleaned mechanically by scripts/build-buyer-corpus.ts import (lines whose concept the lexicon',
    '# lacks, empty or malformed lines and repeated lines, within or across files, dropped; no query',
    '# edited), sorted.',
  ];
}

export interface Labelled {
  concept: string;
  query: string;
}

export function readLabelled(text: string): Labelled[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [concept, query] = l.split('\t') as [string, string];
      return { concept, query };
    });
}

/** One file to import: a writer's `concept<TAB>query` lines, or an earlier import (header and all). */
export interface Source {
  name: string;
  text: string;
}

/** The rounds a source holds: by a writer's file name, or as an earlier import's header says. */
function roundsOf({ name, text }: Source): number[] {
  if (/^queries-\d/.test(name)) return [1];
  if (/^queries-b\d/.test(name)) return [2];
  if (/^queries-c\d/.test(name)) return [3];
  return [1, ...[...text.matchAll(/^# Round (\d+) /gm)].map((m) => Number(m[1]))];
}

/**
 * Concatenates the sources and cleans them mechanically (see the file's comment): the data file's
 * text and a one-line summary. An earlier import's header lines are not queries: they are skipped,
 * and what they say it read is carried into the new header.
 */
export function importLabelled(
  sources: Source[],
  known: ReadonlySet<string>,
): { text: string; summary: string } {
  let total = 0;
  let unknown = 0;
  let malformed = 0;
  let repeated = 0;
  const kept = new Set<string>();
  const perFile: string[] = [];
  const rounds = new Set<number>();
  for (const source of sources) {
    for (const r of roundsOf(source)) rounds.add(r);
    let read = 0;
    const earlier: string[] = [];
    for (const raw of source.text.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      if (line.startsWith('#')) {
        const m = /^# (?:Lines read: (.*)|(\d+ lines read, .*))\.$/.exec(line);
        if (m) earlier.push(m[1] ?? m[2]!.replace(/ lines read/, ' read'));
        continue;
      }
      total++;
      read++;
      const parts = line.split('\t');
      const concept = parts[0]!.trim();
      const query = parts.slice(1).join(' ').replace(/\s+/g, ' ').trim();
      if (parts.length < 2 || query === '') {
        malformed++;
        continue;
      }
      if (!known.has(concept)) {
        unknown++;
        continue;
      }
      const key = `${concept}\t${query}`;
      if (kept.has(key)) repeated++;
      else kept.add(key);
    }
    perFile.push(
      `${source.name} ${read}${earlier.length > 0 ? ` (its import: ${earlier.join('; ')})` : ''}`,
    );
  }
  const lines = [...kept].sort();
  const text =
    [
      ...header(rounds),
      `# Lines read: ${perFile.join(', ')}.`,
      `# ${total} lines read, ${malformed} malformed, ${unknown} with a concept not in the lexicon, ${repeated} repeated: ${lines.length} kept.`,
      ...lines,
    ].join('\n') + '\n';
  const summary = `${total} lines, ${malformed} malformed, ${unknown} unknown concept, ${repeated} repeated, ${lines.length} kept, ${new Set(lines.map((l) => l.split('\t')[0])).size} concepts`;
  return { text, summary };
}

function importFiles(files: string[], out = DATA): void {
  const { text, summary } = importLabelled(
    files.map((f) => ({ name: basename(f), text: readFileSync(f, 'utf8') })),
    new Set(taskLexicon().concepts.keys()),
  );
  writeFileSync(out, text);
  console.log(summary);
}

/** A word of the table: a plain lowercase word of 3-30 letters or digits, not a number. */
const PLAIN = /^[a-z][a-z0-9]{2,29}$/;

export interface BuyerOptions {
  /** pseudo-count of the prior in P(concept | word): few queries are shrunk to the base rate */
  prior: number;
  /** queries (of the concept) a word must appear in */
  minPair: number;
  /** queries (of any concept) a word must appear in to predict at all (1: every word) */
  minDf?: number;
  /** kept from this smoothed P(concept | word) up */
  minP: number;
  /** a word used for more concepts than this is generic ("want", "automatically"): left out */
  maxSpread: number;
  /** per word, at most this many concepts */
  top: number;
  /**
   * When set, `maxSpread` is relative to a corpus of this many queries: the cap is `maxSpread` ×
   * queries ÷ `spreadRef` (a word's spread grows with the corpus; round 1's 5,256 at 48 is 48).
   */
  spreadRef?: number;
  /**
   * When set, genericity by entropy instead of a count: a word seen in at least `entropyMinDf`
   * queries whose concepts' entropy, over its largest possible (log of min(queries, concepts)),
   * exceeds this is generic (spread as evenly as its count allows).
   */
  maxEntropy?: number;
  entropyMinDf?: number;
}
/**
 * Chosen by `cv` and `diag` (the share of held-out queries whose concept their words predict
 * first) on both rounds: no spread cap (a count cap drops common words once the corpus grows:
 * "build", "per"), 5 concepts a word (a word leaning to several keeps the one a query needs).
 */
export const BUYER_OPTIONS: BuyerOptions = {
  prior: 5,
  minPair: 1,
  minP: 0.05,
  maxSpread: Infinity,
  top: 5,
};
/** Round 1's table (stop 28), the settings `diag` starts from. */
const ROUND1_OPTIONS: BuyerOptions = { ...BUYER_OPTIONS, maxSpread: 48, top: 3 };

const stemsOf = new WeakMap<Labelled, string[]>();
/** One query's words by stem, less the stack names and the words that name its concept. */
function queryStems(d: Labelled): string[] {
  let stems = stemsOf.get(d);
  if (!stems) stemsOf.set(d, (stems = computeStems(d)));
  return stems;
}

function computeStems({ concept, query }: Labelled): string[] {
  const naming = new Set<string>();
  // contiguous phrases only: the table was built (and its ranking read) before separable phrasal
  // verbs (issue 30, stop 41); rebuilding with them is a change of its own to measure
  for (const [word, named] of lexiconConcepts(query, true, false))
    if (named.includes(`t:${concept}`)) naming.add(stem(word.toLowerCase()));
  return [
    ...new Set(
      tokenize(query)
        .filter((w) => !isStackWord(w))
        .map(stem),
    ),
  ].filter((s) => PLAIN.test(s) && !naming.has(s));
}

/**
 * Per word stem: P(concept | word) over the queries it appears in, counting only queries where it
 * does not itself name the labelled concept, smoothed towards the concept's base rate (`prior`
 * pseudo-queries), kept from `minP` up where seen in `minPair` queries of the concept, the `top`
 * strongest; a word seen with more than `maxSpread` concepts is generic and left out.
 */
export function learnBuyer(
  data: Labelled[],
  o: BuyerOptions = BUYER_OPTIONS,
): Map<string, Array<[string, number]>> {
  const N = data.length;
  const df = new Map<string, number>();
  const cf = new Map<string, number>();
  const wc = new Map<string, Map<string, number>>();
  for (const d of data) {
    cf.set(d.concept, (cf.get(d.concept) ?? 0) + 1);
    for (const s of queryStems(d)) {
      df.set(s, (df.get(s) ?? 0) + 1);
      const m = wc.get(s) ?? new Map<string, number>();
      m.set(d.concept, (m.get(d.concept) ?? 0) + 1);
      wc.set(s, m);
    }
  }
  const out = new Map<string, Array<[string, number]>>();
  for (const [s, byConcept] of wc) {
    if (df.get(s)! < (o.minDf ?? 1)) continue;
    if (isGeneric(byConcept, df.get(s)!, N, cf.size, o)) continue;
    const list: Array<[string, number]> = [];
    for (const [c, n] of byConcept) {
      if (n < o.minPair) continue;
      const base = cf.get(c)! / N;
      const p = (n + o.prior * base) / (df.get(s)! + o.prior);
      if (p >= o.minP) list.push([c, p]);
    }
    if (list.length > 0)
      out.set(s, list.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, o.top));
  }
  return out;
}

/** Whether a word is too generic to predict a concept (see BuyerOptions). */
export function isGeneric(
  byConcept: Map<string, number>,
  df: number,
  N: number,
  concepts: number,
  o: BuyerOptions,
): boolean {
  if (o.maxEntropy !== undefined) {
    if (df < (o.entropyMinDf ?? 2)) return false;
    let h = 0;
    for (const n of byConcept.values()) h -= (n / df) * Math.log(n / df);
    return h / Math.log(Math.min(df, concepts)) > o.maxEntropy;
  }
  const cap = o.spreadRef === undefined ? o.maxSpread : (o.maxSpread * N) / o.spreadRef;
  return byConcept.size > cap;
}

export function buildBuyerTable(data: Labelled[], o: BuyerOptions = BUYER_OPTIONS): string {
  const table = learnBuyer(data, o);
  const lines = [
    '# Buyer-corpus associations, built by scripts/build-buyer-corpus.ts from',
    `# scripts/corpus/buyer-queries.txt (${data.length} buyer queries labelled with the concept each means,`,
    `# ${new Set(data.map((d) => d.concept)).size} concepts). Read by src/domain/search/software-corpus.ts. Per word stem:`,
    '# `c stem concept:P(concept|word) ...`. Regenerate, do not edit.',
  ];
  for (const s of [...table.keys()].sort())
    lines.push(
      `c ${s} ${table
        .get(s)!
        .map(([c, p]) => `${c}:${p.toFixed(2)}`)
        .join(' ')}`,
    );
  return lines.join('\n') + '\n';
}

/**
 * 5-fold cross-validation within the corpus: each fifth's queries (every fifth line) classified by
 * the table learned from the rest, a query's concept the one its words (those naming no concept)
 * predict with the largest summed P: share right, share with any prediction.
 */
function crossValidate(data: Labelled[], o: BuyerOptions): { right: number; covered: number } {
  let right = 0;
  let covered = 0;
  for (let fold = 0; fold < 5; fold++) {
    const table = learnBuyer(
      data.filter((_, i) => i % 5 !== fold),
      o,
    );
    const test = data.filter((_, i) => i % 5 === fold);
    for (const d of test) {
      const named = lexiconConcepts(d.query, true, false);
      const score = new Map<string, number>();
      for (const w of new Set(tokenize(d.query))) {
        if (named.has(w) || isStackWord(w)) continue;
        for (const [c, p] of table.get(stem(w)) ?? []) score.set(c, (score.get(c) ?? 0) + p);
      }
      if (score.size === 0) continue;
      covered++;
      const best = [...score].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
      if (best[0] === d.concept) right++;
    }
  }
  return { right: right / data.length, covered: covered / data.length };
}

/** The genericity tests `diag` compares by cross-validation within the corpus. */
const DIAG_OPTIONS: Array<Partial<BuyerOptions>> = [
  { maxSpread: 48 },
  { maxSpread: 48, spreadRef: 5256 },
  { maxSpread: Infinity },
  { maxEntropy: 0.8, entropyMinDf: 10 },
  { maxEntropy: 0.85, entropyMinDf: 10 },
  { maxEntropy: 0.9, entropyMinDf: 10 },
  { maxEntropy: 0.95, entropyMinDf: 10 },
  { maxSpread: Infinity, top: 4 },
  { maxSpread: Infinity, top: 5 },
  { maxSpread: Infinity, top: 6 },
  { maxSpread: Infinity, top: 8 },
];

/**
 * Stop 50: the concepts a task is asked for in. Of the buyer queries labelled with concept A, the
 * share that name concept B (the lexicon, read as the search reads a query) is how often buyers
 * state B as the setting of A: two-factor queries name a phone and a login ("a code from the phone
 * app at login"), SMS queries a phone. B is a setting of A where at least `minQueries` of A's
 * queries name it and at least `minShare` of them; where each is the other's, neither is (a pair
 * that goes together, not a task and its setting). Returns A → its settings, sorted.
 */
export interface SettingOptions {
  minQueries: number;
  minShare: number;
}
export const SETTING_OPTIONS: SettingOptions = { minQueries: 3, minShare: 0.15 };

export function learnSettings(
  data: Labelled[],
  o: SettingOptions = SETTING_OPTIONS,
): Map<string, string[]> {
  const queries = new Map<string, number>();
  const named = new Map<string, Map<string, number>>();
  for (const { concept, query } of data) {
    queries.set(concept, (queries.get(concept) ?? 0) + 1);
    const counts = named.get(concept) ?? new Map<string, number>();
    named.set(concept, counts);
    for (const c of new Set([...lexiconConcepts(query, true).values()].flat())) {
      const b = c.slice(2);
      if (b !== concept) counts.set(b, (counts.get(b) ?? 0) + 1);
    }
  }
  const settings = new Map<string, Set<string>>();
  for (const [a, counts] of named)
    for (const [b, k] of counts)
      if (k >= o.minQueries && k / queries.get(a)! >= o.minShare)
        settings.set(a, (settings.get(a) ?? new Set()).add(b));
  const out = new Map<string, string[]>();
  for (const a of [...settings.keys()].sort()) {
    const own = [...settings.get(a)!].filter((b) => !settings.get(b)?.has(a)).sort();
    if (own.length > 0) out.set(a, own);
  }
  return out;
}

export function buildSettingsTable(data: Labelled[], o: SettingOptions = SETTING_OPTIONS): string {
  const table = learnSettings(data, o);
  return (
    [
      '# Concept settings, built by scripts/build-buyer-corpus.ts settings from',
      `# scripts/corpus/buyer-queries.txt and queries-c1..c3.txt (${data.length} buyer queries labelled with`,
      `# the concept each means): \`s task setting ...\`, a setting being a concept that at least`,
      `# ${o.minQueries} and ${o.minShare} of the task's queries name (not where each is the other's).`,
      '# Read by src/domain/search/software-corpus.ts. Regenerate, do not edit.',
      ...[...table].map(([a, bs]) => `s ${a} ${bs.join(' ')}`),
    ].join('\n') + '\n'
  );
}

/**
 * Stop 51: how often a concept a buyer names is the task asked for, not its context. Of the buyer
 * queries that name concept B (the lexicon, read as the search reads a query), the share labelled
 * B, shrunk towards the share over every naming (`prior` pseudo-queries): "phone" in a query is
 * mostly the setting of an SMS, two-factor or chat task (mobile push 0.08), "every morning" of a
 * scheduled one, while a query naming a virus scan asks for one. Concepts many tasks happen in
 * (shopping, e-mail, notifications, sign-in) read low, specific tasks high. Writers avoided their
 * own concept's entries, so every share is low in absolute terms; the ranking reads them relative
 * to each other (soft-match.ts `conceptWeights`). Returns the overall share and concept → share.
 */
export function learnTaskShares(
  data: Labelled[],
  prior = TASK_PRIOR,
): { overall: number; shares: Map<string, number> } {
  const named = new Map<string, number>();
  const own = new Map<string, number>();
  for (const { concept, query } of data)
    for (const c of new Set([...lexiconConcepts(query, true).values()].flat())) {
      const b = c.slice(2);
      named.set(b, (named.get(b) ?? 0) + 1);
      if (b === concept) own.set(b, (own.get(b) ?? 0) + 1);
    }
  let all = 0;
  let owned = 0;
  for (const [b, n] of named) {
    all += n;
    owned += own.get(b) ?? 0;
  }
  const overall = all > 0 ? owned / all : 0;
  const shares = new Map<string, number>();
  for (const b of [...named.keys()].sort())
    shares.set(b, ((own.get(b) ?? 0) + prior * overall) / (named.get(b)! + prior));
  return { overall, shares };
}
/** Pseudo-queries the task share is shrunk with (the buyer table's prior). */
export const TASK_PRIOR = 5;

export function buildTaskTable(data: Labelled[], prior = TASK_PRIOR): string {
  const { overall, shares } = learnTaskShares(data, prior);
  return (
    [
      '# Concept task shares, built by scripts/build-buyer-corpus.ts tasks from',
      `# scripts/corpus/buyer-queries.txt and queries-c1..c3.txt (${data.length} buyer queries labelled with`,
      '# the concept each means): of the queries naming a concept, the share labelled with it, shrunk',
      `# towards the share over all (${prior} pseudo-queries): \`p overall\`, then \`t concept share\`.`,
      '# Read by src/domain/search/software-corpus.ts. Regenerate, do not edit.',
      `p ${overall.toFixed(3)}`,
      ...[...shares].map(([b, t]) => `t ${b} ${t.toFixed(3)}`),
    ].join('\n') + '\n'
  );
}

/**
 * Stop 54: the labelled queries as the whole-query neighbours read them (src/domain/search/
 * buyer-neighbours.ts): their stems, grouped by concept in name order, each concept's queries in
 * the corpus's order; a query with no stem left is left out.
 */
export function buildNeighboursTable(data: Labelled[]): string {
  const by = new Map<string, string[]>();
  for (const { concept, query } of data) {
    const stems = neighbourStems(query);
    if (stems.length === 0) continue;
    by.set(concept, [...(by.get(concept) ?? []), stems.join(' ')]);
  }
  const concepts = [...by.keys()].sort();
  return (
    [
      '# Labelled buyer queries as stems, built by scripts/build-buyer-corpus.ts neighbours from',
      `# scripts/corpus/buyer-queries.txt and queries-c1..c3.txt (${data.length} buyer queries labelled with`,
      "# the concept each means): `t:concept`, then one line of stems per query (the search's tokenizer",
      '# and stemmer, stack names left out). Read by src/domain/search/buyer-neighbours.ts. Regenerate,',
      '# do not edit.',
      ...concepts.flatMap((c) => [`t:${c}`, ...by.get(c)!]),
    ].join('\n') + '\n'
  );
}

/**
 * Stop 52: per concept, how often its buyer queries name only other concepts (their context: "a
 * link in the mail" for passwordless sign-in names e-mail), and which, over the settings table's
 * queries: where the lexicon lacks a buyer's words for the task itself. Most concepts read high,
 * since the writers avoided each concept's own entries; the order, not the level, is the reading.
 */
export function contextOnly(
  data: Labelled[],
): Array<{ concept: string; queries: number; share: number; contexts: Array<[string, number]> }> {
  const by = new Map<string, { queries: number; only: number; contexts: Map<string, number> }>();
  for (const { concept, query } of data) {
    const e = by.get(concept) ?? { queries: 0, only: 0, contexts: new Map<string, number>() };
    by.set(concept, e);
    e.queries++;
    const named = new Set([...lexiconConcepts(query, true).values()].flat().map((c) => c.slice(2)));
    if (named.size === 0 || named.has(concept)) continue;
    e.only++;
    for (const b of named) e.contexts.set(b, (e.contexts.get(b) ?? 0) + 1);
  }
  return [...by]
    .map(([concept, e]) => ({
      concept,
      queries: e.queries,
      share: e.only / e.queries,
      contexts: [...e.contexts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    }))
    .sort((a, b) => b.share - a.share || a.concept.localeCompare(b.concept));
}

/** The queries the settings table learns from: the data file and round 3's, cleaned as import does. */
export function settingQueries(): Labelled[] {
  const { text } = importLabelled(
    [DATA, ...ROUND3].map((f) => ({ name: basename(f), text: readFileSync(f, 'utf8') })),
    new Set(taskLexicon().concepts.keys()),
  );
  return readLabelled(text);
}

/** The corpus file as committed. */
export function buyerQueries(): Labelled[] {
  return readLabelled(readFileSync(DATA, 'utf8'));
}

const [cmd = 'build', ...rest] = process.argv.slice(2);
const main =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (!main) {
  // imported (by the table's unit test)
} else if (cmd === 'import') {
  // `import --out <file> ...` writes elsewhere (to try a round in progress)
  if (rest[0] === '--out') importFiles(rest.slice(2), rest[1]);
  else importFiles(rest);
} else if (cmd === 'build') {
  // `build [out] [minDf]`: another table to try (BUYER_OPTIONS otherwise)
  const minDf = rest[1] === undefined ? undefined : Number(rest[1]);
  writeFileSync(
    rest[0] ?? TABLE,
    buildBuyerTable(
      buyerQueries(),
      minDf === undefined ? BUYER_OPTIONS : { ...BUYER_OPTIONS, minDf },
    ),
  );
} else if (cmd === 'settings') {
  writeFileSync(rest[0] ?? SETTINGS_TABLE, buildSettingsTable(settingQueries()));
} else if (cmd === 'tasks') {
  writeFileSync(rest[0] ?? TASKS_TABLE, buildTaskTable(settingQueries()));
} else if (cmd === 'neighbours') {
  writeFileSync(rest[0] ?? NEIGHBOURS_TABLE, buildNeighboursTable(settingQueries()));
} else if (cmd === 'contexts') {
  for (const { concept, queries, share, contexts } of contextOnly(settingQueries()))
    console.log(
      `${concept} ${queries} ${share.toFixed(2)}`,
      contexts
        .slice(0, 4)
        .map(([b, k]) => `${b}:${k}`)
        .join(' '),
    );
} else if (cmd === 'cv') {
  // on the committed corpus, or on another file of the same form (a round in progress)
  const data = rest[0] === undefined ? buyerQueries() : readLabelled(readFileSync(rest[0], 'utf8'));
  for (const prior of [1, 2, 5, 10, 20])
    for (const minP of [0.02, 0.05, 0.1, 0.2])
      for (const maxSpread of [12, 24, 48, 96, 329])
        for (const minPair of [1, 2])
          console.log(
            JSON.stringify({ prior, minP, maxSpread, minPair }),
            crossValidate(data, { ...BUYER_OPTIONS, prior, minP, maxSpread, minPair }),
          );
} else if (cmd === 'diag') {
  // issue 30, stop 29: does the spread cap drop what round 1 kept once the corpus grows?
  const r1 = readLabelled(readFileSync(ROUND1, 'utf8'));
  const both = buyerQueries();
  const spread = (data: Labelled[]) => {
    const m = new Map<string, { df: number; by: Map<string, number> }>();
    for (const d of data)
      for (const s of queryStems(d)) {
        const e = m.get(s) ?? { df: 0, by: new Map<string, number>() };
        e.df++;
        e.by.set(d.concept, (e.by.get(d.concept) ?? 0) + 1);
        m.set(s, e);
      }
    return m;
  };
  const [s1, s2] = [spread(r1), spread(both)];
  const t1 = learnBuyer(r1, ROUND1_OPTIONS);
  const show = (t: Map<string, Array<[string, number]>>, w: string) =>
    (t.get(w) ?? []).map(([c, p]) => `${c} ${p.toFixed(2)}`).join(', ') || '-';
  const capped = (m: typeof s1, cap: number) =>
    [...m].filter(([, e]) => e.by.size > cap).sort((a, b) => b[1].by.size - a[1].by.size);
  console.log(`round 1: ${r1.length} queries; both rounds: ${both.length}`);
  console.log(
    `round 1, spread > 48 (${capped(s1, 48).length}):`,
    capped(s1, 48)
      .map(([w, e]) => `${w} ${e.df}/${e.by.size}`)
      .join(' '),
  );
  console.log(
    `both rounds, spread > 48 (${capped(s2, 48).length}):`,
    capped(s2, 48)
      .map(([w, e]) => `${w} ${e.df}/${e.by.size}`)
      .join(' '),
  );
  const scaled = (48 * both.length) / r1.length;
  const lost = capped(s2, 48).filter(([w]) => t1.has(w));
  console.log(
    `\nkept by round 1's table, dropped by the cap 48 on both rounds (${lost.length}); spread on both, round 1's prediction, both rounds' uncapped:`,
  );
  const uncapped = learnBuyer(both, { ...ROUND1_OPTIONS, maxSpread: Infinity });
  for (const [w, e] of lost)
    console.log(
      `  ${w} df ${e.df} spread ${e.by.size}${e.by.size > scaled ? ' (over the scaled cap too)' : ''}: r1 ${show(t1, w)} | both ${show(uncapped, w)}`,
    );
  for (const [name, data] of [
    ['round 1', r1],
    ['both rounds', both],
  ] as const)
    for (const o of DIAG_OPTIONS)
      console.log(name, JSON.stringify(o), crossValidate(data, { ...ROUND1_OPTIONS, ...o }));
} else
  throw new Error(
    'usage: build-buyer-corpus.ts import <files> | build [out] | settings | tasks | neighbours | contexts | cv | diag',
  );
