/**
 * Stop 53 (issue 30): does a buyer's whole query, read against its nearest labelled buyer queries,
 * name its concept better than the word-level buyer table does? Measured inside the buyer corpus
 * only (the settings table's 12,516 queries, rounds 1-3), never on a judgment set.
 *
 *   npx tsx scripts/buyer-neighbours-cv.ts
 *
 * Two splits: 5-fold by line (every fifth line held out, as `build-buyer-corpus.ts cv` does; the
 * same writer's other queries for the concept stay in training, so it flatters whatever matches
 * wording) and by round (each round's queries classified from the other two rounds, written by other
 * writers: the split closer to a buyer the corpus has never seen). Classifiers, each a concept
 * ranking for a held-out query:
 * - table: the buyer table learned from the training queries (BUYER_OPTIONS), its P summed over the
 *   query's words that name no lexicon concept (`build-buyer-corpus.ts cv`'s reading);
 * - bm25-k: the k training queries nearest by BM25 (the search's tokenizer and stemmer, stack names
 *   left out), each concept weighted by the summed scores of its neighbours;
 * - wv-k: the same with the word vectors' sentence mean (cosine, the neighbours' positive cosines);
 * - table+bm25-k: the table's and bm25-k's scores, each normalised to sum 1, added.
 * Read per query group: all; `context` (the query names a lexicon concept, none its own: where the
 * ranking's concept signal is led by a context concept, stop 52's `contexts`); `own` (names its own
 * concept); `none` (names no concept). Printed: share whose first concept is the label (hit@1), share
 * with the label in the first 3, share with any prediction; for `context` also the share whose label
 * outranks every concept the query names (what the ranking would need from it).
 */
import { readFileSync } from 'node:fs';
import { stem, tokenize } from '../src/embeddings/builtin.js';
import { sharedWordVectors } from '../src/embeddings/word-vectors.js';
import { isStackWord } from '../src/domain/search/stacks.js';
import { lexiconConcepts } from '../src/domain/search/task-lexicon.js';
import {
  BUYER_OPTIONS,
  buyerQueries,
  learnBuyer,
  readLabelled,
  settingQueries,
  type Labelled,
} from './build-buyer-corpus.js';

type Group = 'context' | 'own' | 'none';
interface Query extends Labelled {
  stems: string[];
  named: Set<string>;
  group: Group;
  round: number;
  vec: Float32Array;
}
type Ranking = Array<[string, number]>;

const K1 = 1.2;
const B = 0.75;

function prepare(): Query[] {
  const round1 = new Set(
    readLabelled(
      readFileSync(new URL('./corpus/buyer-queries-round1.txt', import.meta.url), 'utf8'),
    ).map((d) => `${d.concept}\t${d.query}`),
  );
  const rounds12 = new Set(buyerQueries().map((d) => `${d.concept}\t${d.query}`));
  const wv = sharedWordVectors();
  return settingQueries().map((d) => {
    const key = `${d.concept}\t${d.query}`;
    const named = new Set(
      [...lexiconConcepts(d.query, true).values()].flat().map((c) => c.slice(2)),
    );
    const tokens = tokenize(d.query);
    return {
      ...d,
      stems: tokens.filter((w) => !isStackWord(w)).map(stem),
      named,
      group: named.size === 0 ? 'none' : named.has(d.concept) ? 'own' : 'context',
      round: round1.has(key) ? 1 : rounds12.has(key) ? 2 : 3,
      vec: wv.sentence(tokens),
    };
  });
}

function sorted(score: Map<string, number>): Ranking {
  return [...score].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** The table's reading, as `build-buyer-corpus.ts cv`'s crossValidate. */
function tableClassifier(train: Query[]): (q: Query) => Ranking {
  const table = learnBuyer(train, BUYER_OPTIONS);
  return (q) => {
    const named = lexiconConcepts(q.query, true, false);
    const score = new Map<string, number>();
    for (const w of new Set(tokenize(q.query))) {
      if (named.has(w) || isStackWord(w)) continue;
      for (const [c, p] of table.get(stem(w)) ?? []) score.set(c, (score.get(c) ?? 0) + p);
    }
    return sorted(score);
  };
}

/** BM25 over the training queries: per held-out query, each training query's score. */
function bm25Index(train: Query[]): (q: Query) => Array<[number, number]> {
  const postings = new Map<string, Array<[number, number]>>();
  let total = 0;
  train.forEach((d, i) => {
    total += d.stems.length;
    const tf = new Map<string, number>();
    for (const s of d.stems) tf.set(s, (tf.get(s) ?? 0) + 1);
    for (const [s, n] of tf) {
      const p = postings.get(s) ?? [];
      p.push([i, n]);
      postings.set(s, p);
    }
  });
  const avg = total / train.length;
  return (q) => {
    const acc = new Map<number, number>();
    for (const s of new Set(q.stems)) {
      const p = postings.get(s);
      if (!p) continue;
      const idf = Math.log(1 + (train.length - p.length + 0.5) / (p.length + 0.5));
      for (const [i, n] of p) {
        const len = train[i]!.stems.length;
        const part = (idf * n * (K1 + 1)) / (n + K1 * (1 - B + (B * len) / avg));
        acc.set(i, (acc.get(i) ?? 0) + part);
      }
    }
    return [...acc].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  };
}

function wvNearest(train: Query[]): (q: Query) => Array<[number, number]> {
  return (q) => {
    const out: Array<[number, number]> = [];
    train.forEach((d, i) => {
      let dot = 0;
      for (let k = 0; k < q.vec.length; k++) dot += q.vec[k]! * d.vec[k]!;
      if (dot > 0) out.push([i, dot]);
    });
    return out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  };
}

function vote(train: Query[], near: Array<[number, number]>, k: number): Ranking {
  const score = new Map<string, number>();
  for (const [i, s] of near.slice(0, k))
    score.set(train[i]!.concept, (score.get(train[i]!.concept) ?? 0) + s);
  return sorted(score);
}

function mix(a: Ranking, b: Ranking): Ranking {
  const score = new Map<string, number>();
  for (const r of [a, b]) {
    const sum = r.reduce((t, [, s]) => t + s, 0);
    if (sum > 0) for (const [c, s] of r) score.set(c, (score.get(c) ?? 0) + s / sum);
  }
  return sorted(score);
}

const KS = [1, 3, 5, 10, 20, 40];

interface Tally {
  n: number;
  hit1: number;
  hit3: number;
  covered: number;
  aboveNamed: number;
}

function run(all: Query[], folds: Array<(q: Query) => boolean>, title: string): void {
  const tallies = new Map<string, Map<Group | 'all', Tally>>();
  const add = (name: string, q: Query, r: Ranking) => {
    const byGroup = tallies.get(name) ?? new Map<Group | 'all', Tally>();
    tallies.set(name, byGroup);
    const at = r.findIndex(([c]) => c === q.concept);
    // the label's score above every concept the query names (a named concept the classifier does
    // not rank counts as scoring 0)
    const labelScore = at < 0 ? 0 : r[at]![1];
    const above =
      at >= 0 &&
      [...q.named].every((c) => {
        const e = r.find(([x]) => x === c);
        return (e?.[1] ?? 0) < labelScore;
      });
    for (const g of ['all', q.group] as const) {
      const t = byGroup.get(g) ?? { n: 0, hit1: 0, hit3: 0, covered: 0, aboveNamed: 0 };
      byGroup.set(g, t);
      t.n++;
      if (r.length > 0) t.covered++;
      if (at === 0) t.hit1++;
      if (at >= 0 && at < 3) t.hit3++;
      if (above) t.aboveNamed++;
    }
  };
  for (const held of folds) {
    const train = all.filter((q) => !held(q));
    const test = all.filter(held);
    const table = tableClassifier(train);
    const bm25 = bm25Index(train);
    const wv = wvNearest(train);
    for (const q of test) {
      const t = table(q);
      add('table', q, t);
      const nb = bm25(q);
      const nw = wv(q);
      for (const k of KS) {
        const b = vote(train, nb, k);
        add(`bm25-${k}`, q, b);
        add(`wv-${k}`, q, vote(train, nw, k));
        add(`table+bm25-${k}`, q, mix(t, b));
      }
    }
  }
  console.log(`\n${title}`);
  const groups = ['all', 'context', 'own', 'none'] as const;
  const first = tallies.get('table')!;
  console.log(
    'classifier'.padEnd(18),
    groups.map((g) => `${g} (${first.get(g)?.n ?? 0}) hit@1/hit@3/covered`.padEnd(34)).join(''),
    'context: label above named',
  );
  const f = (x: number, n: number) => (n === 0 ? '-' : (x / n).toFixed(3));
  for (const [name, byGroup] of tallies)
    console.log(
      name.padEnd(18),
      groups
        .map((g) => {
          const t = byGroup.get(g) ?? { n: 0, hit1: 0, hit3: 0, covered: 0, aboveNamed: 0 };
          return `${f(t.hit1, t.n)} / ${f(t.hit3, t.n)} / ${f(t.covered, t.n)}`.padEnd(34);
        })
        .join(''),
      f(byGroup.get('context')?.aboveNamed ?? 0, byGroup.get('context')?.n ?? 0),
    );
}

const all = prepare();
const byRound = [1, 2, 3].map((r) => all.filter((q) => q.round === r).length);
console.log(`${all.length} labelled buyer queries (rounds 1/2/3: ${byRound.join(' / ')})`);
const index = new Map(all.map((q, i) => [q, i]));
run(
  all,
  [0, 1, 2, 3, 4].map((fold) => (q: Query) => index.get(q)! % 5 === fold),
  '5-fold by line (every fifth held out)',
);
run(
  all,
  [1, 2, 3].map((r) => (q: Query) => q.round === r),
  'by round (each round classified from the other two)',
);
