import { conceptsOf, stem, tokenize } from '../../embeddings/builtin.js';
import type { WordVectors } from '../../embeddings/word-vectors.js';
import { isStackWord } from './stacks.js';

/**
 * Word pairs count from this hubness-corrected similarity (CSLS, word-vectors.ts) up, their credit
 * rising linearly to 1 at SOFT_MATCH_FULL (both chosen on the tuning half of the relevance set,
 * `npm run bench -- relevance_tune`; a good synonym pair sits near CSLS 0, so a lower "full"
 * credits near-synonyms in full, which the tuning half did not reward over the default).
 */
export const SOFT_MATCH_FLOOR = -0.8;
export const SOFT_MATCH_FULL = 1;
/** Credit for a word that shares a concept group with a listing word (builtin.ts: "throttle" ~ "limiter"). */
export const CONCEPT_MATCH = 0.8;

/**
 * How well a listing's words cover a query's words, 0-1, with word meaning: each query word scores
 * 1 when the listing has it (or the same stem); else the credit of its closest listing word by
 * hubness-corrected word-vector similarity ("spammers" ~ "spam", but not "talk" ~ "go"), or
 * CONCEPT_MATCH when both are in one of the embedder's concept groups; else 0. Words are weighted by
 * SIF (rare words count, "files" and "simple" hardly) and, when given, by their IDF in the catalogue
 * ("csv" counts more than "parse" where many listings parse something). Names of stacks ("go", "express", "rust")
 * are compared by identity only: their word vectors are those of the English words. A greedy
 * word-alignment score in the manner of BERTScore, over static word vectors; cheap enough to run on
 * the few fused candidates.
 */
export function softMatch(
  wv: WordVectors,
  queryTokens: string[],
  docTokens: string[],
  floor = SOFT_MATCH_FLOOR,
  idf?: ReadonlyMap<string, number>,
): number {
  return softMatchWords(wv, prepareQuery(wv, queryTokens, floor, idf), wordsOf(wv, [docTokens]));
}

/** What word matching needs of a listing, computed once per listing text (see `listingWords`). */
export interface ListingWords {
  stems: Set<string>;
  concepts: Set<string>;
  /** word-vector rows of its distinct words, stack names left out (compared by identity only) */
  ids: number[];
  /** adjacent word pairs (by stem) within each of its texts */
  pairs: Set<string>;
}

function wordsOf(wv: WordVectors, texts: string[][], pairTexts = texts): ListingWords {
  const all = texts.flat();
  const ids: number[] = [];
  for (const t of new Set(all)) {
    const id = isStackWord(t) ? undefined : wv.id(t);
    if (id !== undefined) ids.push(id);
  }
  const pairs = new Set<string>();
  for (const tokens of pairTexts) {
    const d = tokens.map(stem);
    for (let i = 0; i + 1 < d.length; i++) pairs.add(`${d[i]} ${d[i + 1]}`);
  }
  return {
    stems: new Set(all.map(stem)),
    concepts: new Set(all.flatMap((t) => conceptsOf(t))),
    ids,
    pairs,
  };
}

/** Bounded: a few kB per listing; the candidates of popular queries repeat. */
const LISTING_CACHE_SIZE = 2_000;
const listingCache = new Map<string, ListingWords>();

/**
 * The words of a listing (title, tech stack, description, prompt summary), cached per process by
 * text: a listing is ranked for many queries, and tokenising it is most of the ranking's work.
 * Phrases are read within the title, the description and the summary, not the stack list.
 */
export function listingWords(
  wv: WordVectors,
  l: { title: string; techStack: string; description: string; promptSummary?: string | null },
): ListingWords {
  const key = `${l.title}\u0000${l.techStack}\u0000${l.description}\u0000${l.promptSummary ?? ''}`;
  let words = listingCache.get(key);
  if (!words) {
    const texts = [l.title, l.description, l.promptSummary ?? ''].map(tokenize);
    words = wordsOf(wv, [...texts, tokenize(l.techStack)], texts);
    if (listingCache.size >= LISTING_CACHE_SIZE)
      listingCache.delete(listingCache.keys().next().value!);
    listingCache.set(key, words);
  }
  return words;
}

/** A query's words prepared once for matching against many listings. */
export interface PreparedQuery {
  floor: number;
  full: number;
  words: Array<{
    stem: string;
    concepts: readonly string[];
    id: number | undefined;
    weight: number;
    /** credit per listing word row, filled as listings are matched */
    credit: Map<number, number>;
  }>;
  total: number;
}

export function prepareQuery(
  wv: WordVectors,
  queryTokens: string[],
  floor = SOFT_MATCH_FLOOR,
  idf?: ReadonlyMap<string, number>,
  full = SOFT_MATCH_FULL,
): PreparedQuery {
  // a word the catalogue lacks weighs as much as its rarest word
  const maxIdf = idf && idf.size > 0 ? Math.max(...idf.values()) : 1;
  const words = [...new Set(queryTokens)].map((w) => ({
    stem: stem(w),
    concepts: conceptsOf(w),
    id: isStackWord(w) ? undefined : wv.id(w),
    // SIF (unknown words are rare ones: full weight) × the word's IDF in this catalogue
    weight: (wv.weight(w) ?? 1) * (idf ? (idf.get(w) ?? maxIdf) : 1),
    credit: new Map<number, number>(),
  }));
  return { floor, full, words, total: words.reduce((s, w) => s + w.weight, 0) };
}

/** softMatch of a prepared query over a listing's analysed words. */
export function softMatchWords(wv: WordVectors, q: PreparedQuery, doc: ListingWords): number {
  let num = 0;
  for (const w of q.words) {
    if (doc.stems.has(w.stem)) {
      num += w.weight;
      continue;
    }
    let best = w.concepts.some((c) => doc.concepts.has(c)) ? CONCEPT_MATCH : 0;
    if (w.id !== undefined)
      for (const d of doc.ids) {
        let credit = w.credit.get(d);
        if (credit === undefined) {
          credit = Math.min(1, (wv.csls(w.id, d) - q.floor) / (q.full - q.floor));
          w.credit.set(d, credit);
        }
        if (credit > best) best = credit;
      }
    num += w.weight * best;
  }
  return q.total > 0 ? num / q.total : 0;
}

/**
 * Share (0-1) of the query's adjacent word pairs (by stem) that also stand adjacent in one of the
 * listing's texts; 0 for a one-word query.
 */
export function phraseMatch(queryTokens: string[], docTexts: string[]): number {
  return phraseMatchWords(queryTokens, wordsOf(NO_VECTORS, docTexts.map(tokenize)));
}

export function phraseMatchWords(queryTokens: string[], doc: ListingWords): number {
  const q = queryTokens.map(stem);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < q.length; i++) if (q[i] !== q[i + 1]) pairs.add(`${q[i]} ${q[i + 1]}`);
  if (pairs.size === 0) return 0;
  let found = 0;
  for (const p of pairs) if (doc.pairs.has(p)) found++;
  return found / pairs.size;
}

const NO_VECTORS = { id: () => undefined } as unknown as WordVectors;
