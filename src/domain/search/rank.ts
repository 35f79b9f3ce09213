import type { Db } from '../../db/index.js';
import { tokenize } from '../../embeddings/builtin.js';
import { sharedWordVectors } from '../../embeddings/word-vectors.js';
import {
  CALIBRATION,
  clearMatchScore,
  cosineScore,
  fusedScore,
  similarityOf,
  type Calibration,
  type CandidateSignals,
} from './calibration.js';
import {
  conceptCoverage,
  listingWords,
  phraseMatchPairs,
  prepareQuery,
  queryPairs,
  softMatchWords,
  type CorpusCredit,
  type PreparedQuery,
} from './soft-match.js';
import { namedStacks, stackMatch, taskText, type CodeMix } from './stacks.js';

/*
 * The final ranking: the few candidates the database gathered (search.ts) scored on word meaning,
 * phrases and stacks, calibrated to one 0-5 similarity (calibration.ts).
 */

export type SearchVariant = 'lexical' | 'vector' | 'fused';

/** What the final ranking reads of a candidate (search.ts reads the public projection of its results). */
export interface CandidateRow {
  id: string;
  title: string;
  description: string;
  promptSummary: string | null;
  techStack: string;
  lexical: number;
  cosine: number;
  /** the languages the scan measured (item_previews), null without a preview */
  codeMix?: CodeMix | null;
}

/** What the final ranking knows of one query, computed once for all its candidates. */
export interface QuerySignals {
  /** the query as typed, stop words kept, for the task lexicon's phrases ("log in", "try again") */
  task: string;
  tokens: string[];
  stacks: number[];
  /**
   * Inverse document frequency of each task word in this catalogue (BM25's, from search_terms):
   * "csv" is specific where "files" and "parse" are not. Words the catalogue lacks are absent.
   */
  idf: Map<string, number>;
  /**
   * Share (0-1) of the query's word weight (IDF) that the catalogue knows: the database's lexical
   * score is BM25 over the known words only, so a listing sharing the one known word of a query
   * whose other words no listing uses reads 1.0 ("boxes left on the shelves" sharing "product").
   * Unknown words weigh as the rarest known one. 1 when not measured.
   */
  known: number;
}

export function querySignals(q: string, idf = new Map<string, number>()): QuerySignals {
  return { task: q, tokens: tokenize(taskText(q)), stacks: namedStacks(q), idf, known: 1 };
}

/** querySignals with each task word's catalogue IDF (one small statement on the term statistics). */
export async function loadQuerySignals(sql: Db, q: string): Promise<QuerySignals> {
  const signals = querySignals(q);
  const words = [...new Set(signals.tokens)];
  if (words.length === 0) return signals;
  const rows = await sql<{ word: string; idf: number | null; rarest: number }[]>`
    select t.word, max(ln(1 + (c.docs - s.df + 0.5) / (s.df + 0.5)))::float8 as idf,
           ln(1 + (c.docs - 0.5) / 1.5)::float8 as rarest
    from unnest(${words}::text[]) t(word)
    cross join (select greatest(docs, 1)::float8 as docs from search_corpus) c
    left join search_terms s
      on s.lexeme = any(tsvector_to_array(to_tsvector('english', t.word))) and s.df > 0
    group by t.word, c.docs`;
  let known = 0;
  let unknown = 0;
  for (const r of rows) {
    if (r.idf === null) {
      unknown += r.rarest;
      continue;
    }
    signals.idf.set(r.word, r.idf);
    known += r.idf;
  }
  signals.known = known + unknown > 0 ? known / (known + unknown) : 1;
  return signals;
}

const prepared = new WeakMap<QuerySignals, PreparedQuery>();
/** The query's words prepared for word matching, once per query and word-pair credit scale. */
function preparedQuery(
  query: QuerySignals,
  floor: number,
  full: number,
  lexiconMatch: number,
  corpus: CorpusCredit,
): PreparedQuery {
  let p = prepared.get(query);
  if (
    !p ||
    p.floor !== floor ||
    p.full !== full ||
    p.lexiconMatch !== lexiconMatch ||
    p.corpus.concept !== corpus.concept ||
    p.corpus.buyer !== corpus.buyer ||
    p.corpus.setting !== corpus.setting ||
    p.corpus.task !== corpus.task ||
    p.corpus.neighbours !== corpus.neighbours
  ) {
    p = prepareQuery(
      sharedWordVectors(),
      query.tokens,
      floor,
      query.idf,
      full,
      lexiconMatch,
      query.task,
      corpus,
    );
    prepared.set(query, p);
  }
  return p;
}

const pairs = new WeakMap<QuerySignals, Set<string>>();
/** The query's adjacent word pairs, once per query. */
function pairsOf(query: QuerySignals): Set<string> {
  let p = pairs.get(query);
  if (!p) pairs.set(query, (p = queryPairs(query.tokens)));
  return p;
}

export function candidateSignals(
  query: QuerySignals,
  row: CandidateRow,
  c: Calibration = CALIBRATION,
): CandidateSignals {
  const wv = sharedWordVectors();
  const words = listingWords(wv, row);
  const prepared = preparedQuery(query, c.softFloor, c.softFull, c.lexiconMatch, {
    concept: c.corpusConcept,
    buyer: c.buyerConcept,
    setting: c.conceptSetting,
    task: c.conceptTask,
    neighbours: c.conceptNeighbours,
  });
  const meaning = softMatchWords(wv, prepared, words, c.meaningBody);
  return {
    lexical: c.lexicalKnown ? row.lexical * query.known : row.lexical,
    vector: cosineScore(row.cosine, c),
    meaning,
    phrase: phraseMatchPairs(pairsOf(query), words),
    concept: conceptCoverage(prepared, words, c.conceptBody, c.conceptExplained) ?? meaning,
    stack: stackMatch(query.stacks, row.techStack, row.codeMix),
  };
}

/** One candidate's score, 0-1, for a ranking variant. */
export function scoreCandidate(
  query: QuerySignals,
  row: CandidateRow,
  variant: SearchVariant = 'fused',
  c: Calibration = CALIBRATION,
): number {
  if (variant === 'lexical') return row.lexical;
  if (variant === 'vector') return cosineScore(row.cosine, c);
  return fusedScore(candidateSignals(query, row, c), c);
}

/** The final ranking of the database's candidates: 0-5 similarity, best first. */
export function rankCandidates<R extends CandidateRow>(
  query: QuerySignals,
  rows: R[],
  variant: SearchVariant = 'fused',
  c: Calibration = CALIBRATION,
): Array<{ row: R; similarity: number; score: number }> {
  const scores = rows.map((row) => scoreCandidate(query, row, variant, c));
  return rankScored(query, rows, scores, c, variant === 'fused');
}

/**
 * Candidates in rank order from their scores: close siblings lifted (`liftSiblings`, the fused
 * ranking), each score read as similarity, ties by title then id. For a caller that has the scores
 * already (test/bench/relevance-cap.ts re-ranks cached signals under other calibrations).
 */
export function rankScored<R extends CandidateRow>(
  query: QuerySignals,
  rows: R[],
  scores: number[],
  c: Calibration,
  liftSiblings: boolean,
): Array<{ row: R; similarity: number; score: number }> {
  const lifts = liftSiblings ? siblingLifts(query, rows, scores, c) : undefined;
  const out = rows.map((row, i) => {
    const score = scores[i]! + (lifts?.[i] ?? 0);
    return { row, score, similarity: similarityOf(score, c) };
  });
  // equal scores: by title, then id, so that the order does not depend on when listings were added
  return out.sort(
    (x, y) =>
      y.score - x.score ||
      (x.row.title < y.row.title ? -1 : x.row.title > y.row.title ? 1 : 0) ||
      (x.row.id < y.row.id ? -1 : 1),
  );
}

/**
 * Siblings told apart by their own descriptions (stop 49): of the candidates within
 * `siblingDistance` of the leader's score, each query word that some of them and not all hold in
 * their description (by stem, not in their title) is weighed by how rare it is among them (a
 * candidate-local IDF, ln(n ÷ holders)) × its weight in the query; a candidate's share of the
 * query's total of such weights, × `siblingLift`, is added to its score. Words every close
 * candidate holds, or none, tell nothing; the lift is smaller than the distance, so it reorders
 * only close siblings and never lifts a far one past the leader.
 */
function siblingLifts(
  query: QuerySignals,
  rows: CandidateRow[],
  scores: number[],
  c: Calibration,
): number[] | undefined {
  if (c.siblingLift <= 0 || rows.length < 2) return undefined;
  const top = Math.max(...scores);
  // a clear match (the task score saturated) is no sibling tie: its order is the task score's
  if (top >= clearMatchScore(c)) return undefined;
  const close = rows.flatMap((_, i) => (scores[i]! >= top - c.siblingDistance ? [i] : []));
  if (close.length < 2) return undefined;
  const wv = sharedWordVectors();
  const prepared = preparedQuery(query, c.softFloor, c.softFull, c.lexiconMatch, {
    concept: c.corpusConcept,
    buyer: c.buyerConcept,
    setting: c.conceptSetting,
    task: c.conceptTask,
    neighbours: c.conceptNeighbours,
  });
  const words = close.map((i) => listingWords(wv, rows[i]!));
  const n = close.length;
  let total = 0;
  const got = new Array<number>(n).fill(0);
  for (const w of prepared.words) {
    const holders = words.flatMap((d, k) =>
      d.stems.has(w.stem) && !d.titleStems.has(w.stem) ? [k] : [],
    );
    if (holders.length === 0 || holders.length === n) continue;
    const idf = w.weight * Math.log(n / holders.length);
    total += w.weight * Math.log(n);
    for (const k of holders) got[k]! += idf;
  }
  if (total <= 0) return undefined;
  const lifts = new Array<number>(rows.length).fill(0);
  close.forEach((i, k) => (lifts[i] = (c.siblingLift * got[k]!) / total));
  return lifts;
}
