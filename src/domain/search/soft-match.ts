import { conceptsOf, stem } from '../../embeddings/builtin.js';
import type { WordVectors } from '../../embeddings/word-vectors.js';
import { isStackWord } from './stacks.js';

/**
 * Word pairs count from this hubness-corrected similarity (CSLS, word-vectors.ts) up, their credit
 * rising linearly to 1 (tuned on the tuning half of the relevance set, `npm run bench -- relevance`).
 */
export const SOFT_MATCH_FLOOR = -0.6;
/** Credit for a word that shares a concept group with a listing word (builtin.ts: "throttle" ~ "limiter"). */
export const CONCEPT_MATCH = 0.8;

/**
 * How well a listing's words cover a query's words, 0-1, with word meaning: each query word scores
 * 1 when the listing has it (or the same stem); else the credit of its closest listing word by
 * hubness-corrected word-vector similarity ("spammers" ~ "spam", but not "talk" ~ "go"), or
 * CONCEPT_MATCH when both are in one of the embedder's concept groups; else 0. Words are weighted by
 * SIF (rare words count, "files" and "simple" hardly). Names of stacks ("go", "express", "rust")
 * are compared by identity only: their word vectors are those of the English words. A greedy
 * word-alignment score in the manner of BERTScore, over static word vectors; cheap enough to run on
 * the few fused candidates.
 */
export function softMatch(
  wv: WordVectors,
  queryTokens: string[],
  docTokens: string[],
  floor = SOFT_MATCH_FLOOR,
): number {
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
    const weight = wv.weight(w) ?? 1; // unknown words are rare ones: full weight
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
