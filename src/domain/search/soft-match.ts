import { conceptsOf, stem, tokenize } from '../../embeddings/builtin.js';
import type { WordVectors } from '../../embeddings/word-vectors.js';
import { isStackWord } from './stacks.js';

/**
 * Word pairs count from this hubness-corrected similarity (CSLS, word-vectors.ts) up, their credit
 * rising linearly to 1 (tuned on the tuning half of the relevance set, `npm run bench -- relevance`).
 */
export const SOFT_MATCH_FLOOR = -0.8;
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
  // a word the catalogue lacks weighs as much as its rarest word
  const maxIdf = idf && idf.size > 0 ? Math.max(...idf.values()) : 1;
  const docStems = new Set(docTokens.map(stem));
  const docConcepts = new Set(docTokens.flatMap((t) => conceptsOf(t)));
  const docIds: number[] = [];
  for (const t of new Set(docTokens)) {
    const id = isStackWord(t) ? undefined : wv.id(t);
    if (id !== undefined) docIds.push(id);
  }
  let num = 0;
  let den = 0;
  for (const w of new Set(queryTokens)) {
    // SIF (unknown words are rare ones: full weight) × the word's IDF in this catalogue
    const weight = (wv.weight(w) ?? 1) * (idf ? (idf.get(w) ?? maxIdf) : 1);
    den += weight;
    if (docStems.has(stem(w))) {
      num += weight;
      continue;
    }
    let best = conceptsOf(w).some((c) => docConcepts.has(c)) ? CONCEPT_MATCH : 0;
    const q = isStackWord(w) ? undefined : wv.id(w);
    if (q !== undefined)
      for (const d of docIds) {
        const credit = Math.min(1, (wv.csls(q, d) - floor) / (1 - floor));
        if (credit > best) best = credit;
      }
    num += weight * best;
  }
  return den > 0 ? num / den : 0;
}

/**
 * Share (0-1) of the query's adjacent word pairs (by stem) that also stand adjacent in one of the
 * listing's texts; 0 for a one-word query.
 */
export function phraseMatch(queryTokens: string[], docTexts: string[]): number {
  const q = queryTokens.map(stem);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < q.length; i++) if (q[i] !== q[i + 1]) pairs.add(`${q[i]} ${q[i + 1]}`);
  if (pairs.size === 0) return 0;
  const doc = new Set<string>();
  for (const text of docTexts) {
    const d = tokenize(text).map(stem);
    for (let i = 0; i + 1 < d.length; i++) doc.add(`${d[i]} ${d[i + 1]}`);
  }
  let found = 0;
  for (const p of pairs) if (doc.has(p)) found++;
  return found / pairs.size;
}
