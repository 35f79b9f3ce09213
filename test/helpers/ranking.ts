import type { CandidateRow } from '../../src/domain/search/rank.js';
import { CORPUS_CREDIT, prepareQuery } from '../../src/domain/search/soft-match.js';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';

/**
 * A query prepared as the ranking prepares it, with some of the corpus credits set otherwise (a
 * signal's test compares the query with the signal on and off).
 */
export const preparedWith = (q: string, credit: Partial<typeof CORPUS_CREDIT>) =>
  prepareQuery(sharedWordVectors(), tokenize(q), -0.8, undefined, 1, 0.8, q, {
    ...CORPUS_CREDIT,
    ...credit,
  });

/**
 * A listing as the ranking sees it: its text, and the lexical and vector signals the relevance
 * bench gives it for one query (tests that pin an order among a few catalogue listings).
 */
export const rankedListing = (
  id: string,
  title: string,
  techStack: string,
  description: string,
  lexical: number,
  cosine: number,
) => ({ id, title, techStack, description, promptSummary: null, lexical, cosine }) as CandidateRow;
