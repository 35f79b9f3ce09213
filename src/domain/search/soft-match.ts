import { conceptsOf, stem } from '../../embeddings/builtin.js';
import type { WordVectors } from '../../embeddings/word-vectors.js';

/** Word pairs less similar than this count as no match at all (measured on the relevance set). */
export const SOFT_MATCH_THRESHOLD = 0.6;
/** Credit for a word that shares a concept group with a listing word (builtin.ts: "throttle" ~ "limiter"). */
export const CONCEPT_MATCH = 0.8;

/**
 * How well a listing's words cover a query's words, 0-1, with word meaning: each query word scores
 * 1 when the listing has it (or the same stem), else the cosine of its closest listing word when
 * that is at least SOFT_MATCH_THRESHOLD ("spending" ~ "expense") or CONCEPT_MATCH when both are in one of
 * the embedder's concept groups ("throttle" ~ "limiter"), else 0; words are weighted by SIF
 * (rare words count, "files" and "simple" hardly). A greedy word-alignment score in the manner of
 * BERTScore, over static word vectors; cheap enough to run on the few fused candidates.
 */
export function softMatch(
  wv: WordVectors,
  queryTokens: string[],
  docTokens: string[],
  threshold = SOFT_MATCH_THRESHOLD,
): number {
  const docStems = new Set(docTokens.map(stem));
  const docConcepts = new Set(docTokens.flatMap((t) => conceptsOf(t)));
  const docIds: number[] = [];
  for (const t of new Set(docTokens)) {
    const id = wv.id(t);
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
    const q = wv.id(w);
    if (q === undefined) {
      num += weight * best;
      continue;
    }
    for (const d of docIds) {
      const s = wv.similarity(q, d);
      if (s > best) best = s;
    }
    if (best >= threshold) num += weight * best;
  }
  return den > 0 ? num / den : 0;
}
