import { readFileSync } from 'node:fs';
import { stem, tokenize } from '../../embeddings/builtin.js';
import { isStackWord } from './stacks.js';

/**
 * Stop 54 (issue 30): a buyer's whole query read against the labelled buyer queries
 * (scripts/corpus/, 12,516 queries each labelled with the concept it asks for): its nearest labelled
 * queries by BM25, each concept weighted by its neighbours' summed scores, name the query's task
 * better than the word-level buyer table does when the words name only its context ("users get in
 * by clicking something we mail them": sign-in, not e-mail). Cross-validated inside the corpus by
 * round (writers the training never saw): the query's concept first 0.59 of the time against the
 * table's 0.38, and above every concept the query names 0.80 against 0.70
 * (scripts/buyer-neighbours-cv.ts, docs/search-meaning.md "Stop 53").
 *
 * The labelled queries ship as their stems, grouped by concept (assets/search/buyer-neighbours.txt,
 * built by `scripts/build-buyer-corpus.ts neighbours`, rebuilt byte for byte by its unit test); the
 * index is built on first use (once per process: about 0.6 MB of text).
 */
export const BUYER_NEIGHBOURS_FILE = new URL(
  '../../../assets/search/buyer-neighbours.txt',
  import.meta.url,
);

/** Neighbours that vote: chosen by the corpus's cross-validation (hit@3 and "above" near their best). */
export const NEIGHBOURS_K = 10;
/** BM25's usual constants (the corpus's queries are short: length normalisation matters little). */
const K1 = 1.2;
const B = 0.75;

export interface BuyerNeighbours {
  /** the concepts, "t:…" as lexiconConcepts names them */
  concepts: string[];
  /** per labelled query: its concept's index in `concepts` */
  conceptOf: Uint16Array;
  /** per labelled query: its number of stems */
  lengths: Uint16Array;
  /** stem → the labelled queries holding it, a query once per occurrence, ascending */
  postings: Map<string, Uint32Array>;
  averageLength: number;
}

/** The stems a query is compared by: the search's tokenizer and stemmer, stack names left out. */
export function neighbourStems(text: string): string[] {
  return tokenize(text)
    .filter((w) => !isStackWord(w))
    .map(stem);
}

/**
 * Parses the file's text: `t:concept` opens a concept's queries, each following line one query's
 * stems separated by spaces; `#` lines are comments. A malformed line throws with its number.
 */
export function parseBuyerNeighbours(text: string): BuyerNeighbours {
  const concepts: string[] = [];
  const conceptOf: number[] = [];
  const lengths: number[] = [];
  const lists = new Map<string, number[]>();
  let total = 0;
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('t:')) {
      if (!/^t:[a-z0-9_]+$/.test(line))
        throw new Error(`buyer neighbours line ${i + 1}: expected "t:concept"`);
      concepts.push(line);
      return;
    }
    if (concepts.length === 0)
      throw new Error(`buyer neighbours line ${i + 1}: a query before any "t:concept" line`);
    const stems = line.split(' ');
    if (stems.some((s) => !/^[^\s:]+$/.test(s)))
      throw new Error(`buyer neighbours line ${i + 1}: expected stems separated by one space`);
    const doc = conceptOf.length;
    conceptOf.push(concepts.length - 1);
    lengths.push(stems.length);
    total += stems.length;
    for (const s of stems) {
      const list = lists.get(s);
      if (list) list.push(doc);
      else lists.set(s, [doc]);
    }
  });
  const postings = new Map<string, Uint32Array>();
  for (const [s, list] of lists) postings.set(s, Uint32Array.from(list));
  return {
    concepts,
    conceptOf: Uint16Array.from(conceptOf),
    lengths: Uint16Array.from(lengths),
    postings,
    averageLength: conceptOf.length > 0 ? total / conceptOf.length : 1,
  };
}

let shipped: BuyerNeighbours | undefined;
/** The shipped labelled queries' index, built once per process on first use. */
export function buyerNeighbours(): BuyerNeighbours {
  return (shipped ??= parseBuyerNeighbours(readFileSync(BUYER_NEIGHBOURS_FILE, 'utf8')));
}

/**
 * The concepts of the `k` labelled queries nearest to the query's stems by BM25, each weighted by
 * its neighbours' summed scores, as shares summing to 1 (highest first); empty when no labelled
 * query shares a stem. Equal scores keep the file's order, so the answer is deterministic.
 */
export function neighbourConcepts(
  index: BuyerNeighbours,
  stems: readonly string[],
  k = NEIGHBOURS_K,
): Map<string, number> {
  const n = index.conceptOf.length;
  const score = scratch(index);
  const touched: number[] = [];
  for (const s of new Set(stems)) {
    const list = index.postings.get(s);
    if (!list) continue;
    // document frequency: a query holding the stem twice counts once
    let df = 0;
    for (let j = 0; j < list.length; j++) if (j === 0 || list[j] !== list[j - 1]) df++;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (let j = 0; j < list.length;) {
      const doc = list[j]!;
      let tf = 1;
      while (j + tf < list.length && list[j + tf] === doc) tf++;
      j += tf;
      const norm = 1 - B + (B * index.lengths[doc]!) / index.averageLength;
      if (score[doc] === 0) touched.push(doc);
      score[doc] = score[doc]! + (idf * tf * (K1 + 1)) / (tf + K1 * norm);
    }
  }
  // the k best, higher score first, then the file's order
  const best: number[] = [];
  const before = (a: number, b: number) =>
    score[a]! > score[b]! || (score[a] === score[b] && a < b);
  for (const doc of touched) {
    if (best.length === k && !before(doc, best[k - 1]!)) continue;
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && before(doc, best[at - 1]!)) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = doc;
  }
  const byConcept = new Map<string, number>();
  let sum = 0;
  for (const doc of best) {
    const c = index.concepts[index.conceptOf[doc]!]!;
    byConcept.set(c, (byConcept.get(c) ?? 0) + score[doc]!);
    sum += score[doc]!;
  }
  for (const doc of touched) score[doc] = 0;
  const shares = new Map<string, number>();
  if (sum <= 0) return shares;
  for (const [c, v] of [...byConcept].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)))
    shares.set(c, v / sum);
  return shares;
}

/** One score per labelled query, kept zeroed between lookups (a lookup runs synchronously). */
const scratches = new WeakMap<BuyerNeighbours, Float64Array>();
function scratch(index: BuyerNeighbours): Float64Array {
  let s = scratches.get(index);
  if (!s) scratches.set(index, (s = new Float64Array(index.conceptOf.length)));
  return s;
}
