import type { CandidateRow } from '../../src/domain/search/rank.js';

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
