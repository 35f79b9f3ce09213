import { isSentenceModel } from '../../embeddings/sentence.js';
import { CORPUS_CREDIT, SOFT_MATCH_FLOOR, SOFT_MATCH_FULL, LEXICON_MATCH } from './soft-match.js';

/**
 * Calibration of the final score (see docs/search.md). Every signal is first put on 0-1 and the
 * score is their weighted sum (weights summing to 1), so that it reads the same for every query:
 * - lexical: BM25 over the query's known terms divided by the BM25 of a listing that has every
 *   one of them once in its title (1.0 = all the query's words, where they matter most);
 * - vector: cosine mapped linearly from `cosineFloor` (what unrelated listings typically reach) to
 *   `cosineFull` (a close paraphrase);
 * - meaning: soft word coverage of the query by the listing (soft-match.ts), word pairs counting
 *   from `softFloor` up, in full from `softFull`;
 * - phrase: share of the query's adjacent task-word pairs that stand adjacent in the listing's
 *   title, description or summary ("csv files" in "converting large CSV files"): word order tells
 *   the object of a task from a word it merely shares ("parses application logs" for "parse csv
 *   files");
 * the task score (their sum) is capped at `scoreFull` (a clear match), then multiplied by the stack
 * factor when the query names a stack the listing lacks (nor implies: Flask is Python, stacks.ts),
 * and read as similarity = 5 × (score − `scoreZero`) ÷ (`scoreFull` − `scoreZero`), the stack factor
 * scaling the part above `scoreZero`: a clear match in the named stack reads 5, a
 * clear match in another stack 5 × `stackMiss` (3.5), whatever their raw scores above the cap.
 * `npm run bench -- relevance_tune` proposes values from the tuning halves of the relevance sets
 * only (issue 11's and issue 30's paraphrase set); `npm run bench -- relevance` reports the
 * held-out halves beside them, and a proposal ships only if they hold (docs/search-meaning.md).
 * `concept`, `conceptBody`, `meaningBody` and `lexicalKnown` came from issue 30's second stop; the
 * tuner proposed them again once the lexicon had been written for software tasks in general rather
 * than for the tuning halves' misses, and the held-out halves then held (docs/search-meaning.md).
 */
export type Calibration = typeof CALIBRATION;
export const CALIBRATION = {
  lexical: 0.1,
  vector: 0.1,
  meaning: 0.5,
  phrase: 0.2,
  concept: 0.1,
  /**
   * Credit, in the concept signal, of a task concept the listing names only in its description or
   * summary (1 where its title names it): a listing is what its title says, and mentions features.
   */
  conceptBody: 0.5,
  /**
   * How much, in the concept signal, the title's task words the query leaves unexplained count
   * against a listing (soft-match.ts `conceptCoverage`; 0 turns it off): a listing whose title
   * names the query's concept and another task ("web push notification sender" for a daily digest
   * of notifications) is not the whole answer. Stop 46, on tuning data (docs/search-meaning.md).
   */
  conceptExplained: 0.25,
  /**
   * Credit, in the meaning signal, of a query word matched only in the listing's description or
   * summary, relative to a match in its title or tech stack.
   */
  meaningBody: 0.8,
  /**
   * 1: the lexical score counts the query's words the catalogue lacks as missing (QuerySignals.known),
   * 0: BM25 over the known words only.
   */
  lexicalKnown: 1,
  cosineFloor: 0.3,
  cosineFull: 0.6,
  softFloor: SOFT_MATCH_FLOOR,
  softFull: SOFT_MATCH_FULL,
  /** Credit of a query word whose task concept the listing names in other words (assets/search/task-lexicon.txt). */
  lexiconMatch: LEXICON_MATCH,
  /**
   * What the npm registry's descriptions teach (assets/search/software-corpus.txt, soft-match.ts
   * CORPUS_CREDIT): credit per P(concept | word) of a concept a query word predicts; 0 turns it
   * off.
   */
  corpusConcept: CORPUS_CREDIT.concept,
  /**
   * What buyer queries labelled with their concept teach (assets/search/buyer-corpus.txt,
   * CORPUS_CREDIT): credit per P(concept | word) in word matching; 0 turns it off.
   */
  buyerConcept: CORPUS_CREDIT.buyer,
  /**
   * Stop 50: a concept the query names as the setting of another it names (learned from the buyer
   * queries, assets/search/concept-settings.txt: "at login", "on their phones" for two-factor
   * sign-in) counts as named for a listing whose title names that task and whose every title task
   * the query explains, in the concept signal (× this) and the meaning signal (× `lexiconMatch`);
   * 0 turns it off (soft-match.ts `inSetting`, CORPUS_CREDIT).
   */
  conceptSetting: CORPUS_CREDIT.setting,
  /**
   * Stop 51: each concept the query names weighs, in the concept signal, × the share of buyer
   * queries naming it that ask for it as their task (assets/search/concept-tasks.txt) to this
   * power: a phone or a mail named beside a two-factor or sign-in task is its context. 0 turns it
   * off (soft-match.ts `conceptWeights`, CORPUS_CREDIT).
   */
  conceptTask: CORPUS_CREDIT.task,
  /**
   * Stop 54: credit in word matching, per share, of a concept among the query's nearest labelled
   * buyer queries (assets/search/buyer-neighbours.txt), for each query word that names no concept
   * (soft-match.ts CORPUS_CREDIT); 0 turns it off.
   */
  conceptNeighbours: CORPUS_CREDIT.neighbours,
  /** The fused score that reads as similarity 5 (scores are 0-1, similarity 5 × score ÷ this). */
  scoreFull: 0.5,
  /**
   * The fused score that reads as similarity 0: what a listing reaches by sharing a generic word or
   * two and the word vectors' weak likenesses. Similarity is linear from here to `scoreFull`, so
   * that such listings read below 2 (and below the floor, not returned) on every query.
   * Stop 59: 0.1 → 0.102 (`npx tsx test/bench/relevance-cap.ts grid`, tuning data only): the
   * similarity gap rises on every tuning set and no hit moves; from 0.104 a close pair of weak
   * results swaps (the stack factor scales the part above this), docs/search-meaning.md.
   */
  scoreZero: 0.102,
  /**
   * Siblings told apart by their descriptions (rank.ts `siblingLifts`, stop 49): candidates within
   * `siblingDistance` of the leader's fused score get up to `siblingLift` for the query's words
   * their description holds and few of the other close candidates do (0 turns it off).
   */
  siblingDistance: 0.02,
  siblingLift: 0.01,
  /**
   * Stop 59: the share of the way from `scoreZero` to `scoreFull` above which the task score
   * bends toward the cap instead of meeting it (a saturating curve, `capped`); 1 is a hard cap.
   * Off: measured on tuning data (docs/search-meaning.md, stop 59), it moved no hit, since the
   * raw score already orders capped listings (`TIE_SHARE`), and lowered the similarity gap.
   */
  capKnee: 1,
  /**
   * Stop 59: the concept signal at and above which a listing may reach the cap; below it the
   * ceiling falls linearly to `capOpen` of the scale at concept 0 (0 turns this off): a listing
   * whose words cover the query but that names none of its tasks does not read 5. Off, for the
   * same reason as `capKnee` (stop 59).
   */
  capConcept: 0,
  /** The ceiling's share of the scale (0-1) for a listing naming none of the query's tasks. */
  capOpen: 1,
  /** Score kept when the listing has none of the stacks the query names. */
  stackMiss: 0.7,
  /** Listings below this similarity (0-5) are not returned: "up to 20" may be fewer, or none. */
  floor: 1.0,
};
export const SIMILARITY_FLOOR = CALIBRATION.floor;

/**
 * The calibration of the built-in embedder's sentence option (EMBEDDINGS_BUILTIN=sentence, issue
 * 30's third stop): its cosine tells tasks apart better than the word vectors', so the vector
 * signal weighs more. Proposed by `BENCH_TUNE_GRID=vector npm run bench -- relevance_tune` with
 * the sentence encoder (docs/search-meaning.md).
 */
export const SENTENCE_CALIBRATION: Calibration = {
  ...CALIBRATION,
  // chosen with the concept signal off and the earlier scale; not re-tuned with it
  concept: 0,
  // the software corpus was measured with the word embedder only; with this option it put the
  // dotfiles sync tool first for "keep my work and personal appointments in step"
  corpusConcept: 0,
  // the buyer corpus was measured with the word embedder only
  buyerConcept: 0,
  // learned from the same buyer queries, measured with the word embedder only
  conceptSetting: 0,
  // learned from the same buyer queries, measured with the word embedder only
  conceptTask: 0,
  // the same buyer queries, measured with the word embedder only
  conceptNeighbours: 0,
  conceptBody: 1,
  // the concept signal is off with this option
  conceptExplained: 0,
  // measured with the word embedder only
  siblingLift: 0,
  meaningBody: 1,
  lexicalKnown: 0,
  scoreFull: 0.6,
  // stop 59 measured the word embedder only
  scoreZero: 0.1,
  vector: 0.2,
  meaning: 0.5,
  cosineFloor: 0.3,
  cosineFull: 0.7,
};

/** The calibration for the embedder that made the vectors (by its model name). */
export function calibrationFor(model: string): Calibration {
  return isSentenceModel(model) ? SENTENCE_CALIBRATION : CALIBRATION;
}

/** One candidate's signals, each 0-1 (stack: share of the named stacks the listing has). */
export interface CandidateSignals {
  lexical: number;
  vector: number;
  meaning: number;
  phrase: number;
  /** share of the query's task concepts (assets/search/task-lexicon.txt) the listing names; meaning when none */
  concept: number;
  stack: number;
}

/** Calibrated cosine, 0-1. */
export function cosineScore(cosine: number, c: Calibration = CALIBRATION): number {
  const { cosineFloor, cosineFull } = c;
  return Math.min(1, Math.max(0, (cosine - cosineFloor) / (cosineFull - cosineFloor)));
}

/** Share of the unsaturated task score kept in the fused score: it only breaks ties. */
const TIE_SHARE = 1e-4;

/** The task score: the weighted sum of the signals, before the cap and the stack factor. */
export function taskScore(s: CandidateSignals, c: Calibration = CALIBRATION): number {
  return (
    c.lexical * s.lexical +
    c.vector * s.vector +
    c.meaning * s.meaning +
    c.phrase * s.phrase +
    c.concept * s.concept
  );
}

/** The fused score, 0-1 (before the similarity's × 5). */
export function fusedScore(s: CandidateSignals, c: Calibration = CALIBRATION): number {
  const task = taskScore(s, c);
  const factor = c.stackMiss + (1 - c.stackMiss) * s.stack;
  // The task match saturates first (at similarity 5), then the stack factor applies: a clear
  // match in another stack reads 4 where one in the named stack reads 5, instead of both 5. The
  // small share of the raw task score orders listings that saturate alike.
  // The factor scales the part above `scoreZero` (what similarity reads), so that it means the
  // same share of the similarity whatever the offset.
  let above =
    c.capKnee >= 1
      ? Math.max(0, Math.min(task, c.scoreFull) - c.scoreZero)
      : (c.scoreFull - c.scoreZero) *
        capped((task - c.scoreZero) / (c.scoreFull - c.scoreZero), c.capKnee);
  if (c.capConcept > 0) {
    const ceiling = c.capOpen + (1 - c.capOpen) * Math.min(1, s.concept / c.capConcept);
    above = Math.min(above, ceiling * (c.scoreFull - c.scoreZero));
  }
  return c.scoreZero + above * factor + TIE_SHARE * task;
}

/**
 * The share of the scale a task score reaches, 0-1, from its linear share `x`: `x` up to the
 * knee, then a curve that bends toward 1 (tanh, with the line's slope at the knee), so that of two
 * listings past the knee the one that matches more still reads higher.
 */
export function capped(x: number, knee: number): number {
  if (x <= 0) return 0;
  if (knee >= 1) return Math.min(1, x);
  if (x <= knee) return x;
  return knee + (1 - knee) * Math.tanh((x - knee) / (1 - knee));
}

/** The fused score of a clear match (a task score at `scoreFull`) in the named stack. */
export function clearMatchScore(c: Calibration = CALIBRATION): number {
  if (c.capKnee >= 1) return c.scoreFull;
  return c.scoreZero + (c.scoreFull - c.scoreZero) * capped(1, c.capKnee);
}

/** The 0-5 similarity of a score, one decimal: 5 from `scoreFull` up. */
export function similarityOf(score: number, c: Calibration = CALIBRATION): number {
  const x = (score - c.scoreZero) / (c.scoreFull - c.scoreZero);
  return Math.round(Math.min(1, Math.max(0, x)) * 50) / 10;
}
