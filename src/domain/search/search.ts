import type { Sql } from '../../db/index.js';
import { tokenize } from '../../embeddings/builtin.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { sharedWordVectors } from '../../embeddings/word-vectors.js';
import { toMicro } from '../../wire/money.js';
import { publicColumns, toPublicItem, type PublicItemRow } from '../items/public-item.js';
import { SEARCH_LIMITS, type SearchQuery, type SearchResult } from '../../wire/items.js';
import {
  conceptCoverage,
  LEXICON_MATCH,
  SOFT_MATCH_FLOOR,
  SOFT_MATCH_FULL,
  listingWords,
  phraseMatchWords,
  prepareQuery,
  softMatchWords,
  type PreparedQuery,
} from './soft-match.js';
import {
  impliesRawText,
  namedStacks,
  stackFilterNames,
  stackMatch,
  stackWords,
  taskText,
} from './stacks.js';
import type { Telemetry } from '../telemetry.js';
import { indexedStackTerms, STACK_TERM, toVectorLiteral, vectorType } from './vectors.js';

export const SEARCH_LIMIT = SEARCH_LIMITS.results;
/** Candidates handed from the database to the final ranking. */
const CANDIDATES = 60;
/**
 * Nearest vectors fetched once. Kept within `hnsw.ef_search`, since rows past it cost an iterative
 * re-scan of the graph.
 */
const VECTOR_POOL = 100;
/**
 * Lexical candidates come from the query's selective terms only (document frequency at most this):
 * listings that share only common terms with the query are reached through the vector pool, which
 * bounds the work of very common terms at any catalogue size.
 */
const LEX_DF_CAP = 500;
/** Listings matching a selective term that are scored at most. */
const LEX_POOL = 200;

/** BM25 parameters (Robertson & Zaragoza): term-frequency saturation and length normalisation. */
export const BM25 = { k1: 1.2, b: 0.5 };
/**
 * BM25F-style field weights: a term's frequency in a listing counts each occurrence by its field
 * (tsvector weight class, migration 030).
 */
export const FIELD_WEIGHTS = { title: 3, stack: 2, description: 1, promptSummary: 0.5 };

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
 * The values are chosen by `npm run bench -- relevance_tune` on the tuning halves of the relevance
 * sets only (issue 11's and issue 30's paraphrase set); `npm run bench -- relevance` reports the
 * held-out halves beside them (docs/search-meaning.md).
 */
export type Calibration = typeof CALIBRATION;
export const CALIBRATION = {
  lexical: 0.1,
  vector: 0.1,
  meaning: 0.6,
  phrase: 0.2,
  concept: 0,
  cosineFloor: 0.3,
  cosineFull: 0.6,
  softFloor: SOFT_MATCH_FLOOR,
  softFull: SOFT_MATCH_FULL,
  /** Credit of a query word whose task concept the listing names in other words (task-lexicon.ts). */
  lexiconMatch: LEXICON_MATCH,
  /** The fused score that reads as similarity 5 (scores are 0-1, similarity 5 × score ÷ this). */
  scoreFull: 0.6,
  /**
   * The fused score that reads as similarity 0: what a listing reaches by sharing a generic word or
   * two and the word vectors' weak likenesses. Similarity is linear from here to `scoreFull`, so
   * that such listings read below 2 (and below the floor, not returned) on every query.
   */
  scoreZero: 0.1,
  /** Score kept when the listing has none of the stacks the query names. */
  stackMiss: 0.7,
  /** Listings below this similarity (0-5) are not returned: "up to 20" may be fewer, or none. */
  floor: 1.0,
};
export const SIMILARITY_FLOOR = CALIBRATION.floor;

export type SearchVariant = 'lexical' | 'vector' | 'fused';

export interface SearchOptions {
  efSearch: number;
  ratingThreshold: number;
  /** Exact scan instead of the HNSW index (recall measurement and debugging; slow on large catalogues). */
  exact?: boolean;
  /** Ranking variant, for the relevance benchmark; searches use `fused`. */
  variant?: SearchVariant;
  /** Similarity floor override (the relevance benchmark reports the ranking without one). */
  floor?: number;
  /**
   * Only listings payable on at least one chain (Revision A). Revision B keeps a listing with an
   * empty `available_chains` visible (spec 2.1).
   */
  payableOnly?: boolean;
  /** Told each search's latency (src/telemetry/metrics.ts). */
  telemetry?: Pick<Telemetry, 'searched'>;
}

export interface CandidateRow extends PublicItemRow {
  lexical: number;
  cosine: number;
}

/**
 * Hybrid search. The database gathers candidates, from pgvector cosine over listing vectors (HNSW,
 * iterative scan so filters still fill the page) and from full-text matches of the query's
 * selective terms, and scores them with BM25 (statistics in search_terms / search_corpus, kept by
 * triggers) and cosine similarity. The final ranking adds word meaning and stack awareness on the
 * few candidates, calibrates one 0-5 similarity and drops what falls below the floor.
 */
export async function searchItems(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
): Promise<SearchResult[]> {
  const started = performance.now();
  const variant = opts.variant ?? 'fused';
  const rows = await searchCandidates(sql, embedder, query, opts);
  const floor = opts.floor ?? SIMILARITY_FLOOR;
  const signals =
    variant === 'fused' ? await loadQuerySignals(sql, query.q) : querySignals(query.q);
  const results = rankCandidates(signals, rows, variant)
    .filter((r) => r.similarity >= floor && r.similarity > 0)
    .slice(0, SEARCH_LIMIT)
    .map((r) => ({ ...toPublicItem(r.row, opts.ratingThreshold), similarity: r.similarity }));
  opts.telemetry?.searched(results.length, (performance.now() - started) / 1000);
  return results;
}

/** The database's part: candidates with their lexical (BM25, 0-1) and cosine scores. */
export async function searchCandidates(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
): Promise<CandidateRow[]> {
  const variant = opts.variant ?? 'fused';
  const task = variant === 'fused' ? taskText(query.q) : query.q;
  const [qv] = await embedder.embed([task]);
  const dims = embedder.dimensions;
  const vt = vectorType(sql, dims);
  // literal, not a parameter: the partial HNSW index is only provable with a constant predicate
  const dimsLit = sql.unsafe(String(dims));
  const qlit = toVectorLiteral(qv!);

  const terms = (query.tech_stack ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  let filters = sql`i.status = 'active'`;
  if (query.min_price !== undefined)
    filters = sql`${filters} and i.price_micro >= ${toMicro(query.min_price)}`;
  if (query.max_price !== undefined)
    filters = sql`${filters} and i.price_micro <= ${toMicro(query.max_price)}`;
  if (query.license !== undefined)
    filters = sql`${filters} and exists (select 1 from item_previews p where p.item_id = i.id
      and lower(${query.license}) = any(string_to_array(lower(p.license), ' or ')))`;
  const indexed = terms.length ? await indexedStackTerms(sql, dims) : undefined;
  for (const t of terms) filters = sql`${filters} and ${stackTermFilter(sql, t, indexed)}`;

  const { k1, b } = BM25;
  const w = FIELD_WEIGHTS;
  // a listing with the term once in its title, at average length: the lexical score's 1.0
  const titleTf = (w.title * (k1 + 1)) / (w.title + k1);
  const [cw, lw] = variant === 'lexical' ? [0, 1] : variant === 'vector' ? [1, 0] : [0.5, 0.5];

  const filtered =
    terms.length > 0 ||
    query.min_price !== undefined ||
    query.max_price !== undefined ||
    query.license !== undefined;
  return sql.begin(async (tx) => {
    await tx`select set_config('hnsw.ef_search', ${String(Math.max(opts.efSearch, VECTOR_POOL))}, true),
                    set_config('hnsw.iterative_scan', 'relaxed_order', true),
                    set_config('enable_indexscan', ${opts.exact ? 'off' : 'on'}, true),
                    -- the generic plan cannot see the query's selectivity: keep it on the indexes
                    set_config('enable_seqscan', ${opts.exact ? 'on' : 'off'}, true),
                    -- unfiltered: one cached plan per statement shape (planning costs more than running
                    -- it); filtered: planned with the values, so a selective stack or price filter is
                    -- read through its index and ranked exactly instead of post-filtering the graph
                    set_config('plan_cache_mode', ${filtered ? 'force_custom_plan' : 'force_generic_plan'}, true),
                    -- a disabled seqscan adds 1e10 to every estimate, far past jit_above_cost: a real
                    -- Postgres built with LLVM then compiled the plan on every search (1.5-3.5 s
                    -- for a query that runs in milliseconds). PGlite has no JIT.
                    set_config('jit', 'off', true)`;
    return tx<CandidateRow[]>`
      ${opts.exact ? tx`/* exact scan: its own cached plan */` : tx``}
      with qv as materialized (select ${qlit}::${vt} as v),
      corpus as materialized (
        select greatest(docs, 1)::float8 as docs,
               greatest(total_len::float8 / greatest(docs, 1), 1) as avgdl
        from search_corpus
      ),
      qterms as materialized (
        select t.lexeme, coalesce(s.df, 0) as df,
               ln(1 + ((select docs from corpus) - coalesce(s.df, 0) + 0.5) / (coalesce(s.df, 0) + 0.5)) as idf
        from unnest(tsvector_to_array(to_tsvector('english', ${task}))) t(lexeme)
        left join search_terms s on s.lexeme = t.lexeme
        where coalesce(s.df, 0) > 0
      ),
      rare as materialized (
        -- the selective terms as one OR query (quoted as tsquery input wants)
        select string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery as tq
        from qterms where df <= ${LEX_DF_CAP}
      ),
      vec_pool as materialized (
        select i.id from items i
        where ${cw > 0} and ${filters} and i.embedding_dims = ${dimsLit}
        order by i.embedding::${vt} <=> (select v from qv)
        limit ${VECTOR_POOL}
      ),
      lex_pool as materialized (
        select i.id from items i, rare r
        where ${lw > 0} and r.tq is not null and ${filters} and i.search_document @@ r.tq
        limit ${LEX_POOL}
      ),
      cand as (select id from vec_pool union select id from lex_pool),
      lex as (
        select c.id, sum(q.idf * f.tf * ${k1 + 1}::float8 /
                         (f.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * length(i.search_document) / (select avgdl from corpus)))) as bm25
        from cand c join items i on i.id = c.id
        cross join lateral unnest(i.search_document) u
        join qterms q on q.lexeme = u.lexeme
        cross join lateral (
          select sum(case wc when 'A' then ${w.title}::float8 when 'B' then ${w.stack}::float8
                             when 'C' then ${w.description}::float8 else ${w.promptSummary}::float8 end) as tf
          from unnest(u.weights) wc
        ) f
        group by c.id
      ),
      scored as (
        select c.id,
          -- (least() skips nulls: a query with no known term must score 0, not 1)
          least(1.0, coalesce(l.bm25 / nullif((select sum(idf) * ${titleTf}::float8 from qterms), 0), 0)) as lexical,
          -- a vector of another dimension (not yet re-indexed after a provider change) counts as no
          -- vector: the listing still answers by its words
          case when i.embedding_dims = ${dimsLit}
               then 1 - (i.embedding::${vt} <=> (select v from qv)) else 0 end as cosine
        from cand c join items i on i.id = c.id left join lex l on l.id = c.id
      )
      select * from (
        select ${publicColumns(tx)}, coalesce(sc.lexical, 0)::float8 as lexical, sc.cosine::float8 as cosine
        from scored sc join items i on i.id = sc.id join agents a on a.id = i.seller_id
        -- pre-ranking of the candidates; the final ranking below refines it
        order by ${lw}::float8 * coalesce(sc.lexical, 0) + ${cw}::float8 * sc.cosine desc, i.id
      ) r
      -- Revision A: payable on at least one chain (checked on the few candidates, not per
      -- scanned row); Revision B shows a listing with an empty available_chains (spec 2.1)
      ${opts.payableOnly ? tx`where cardinality(r.available_chains) > 0` : tx``}
      limit ${CANDIDATES}`;
  });
}

// ---- the final ranking (scoring only: the candidates above are the database's part) ----

/** Calibrated cosine, 0-1. */
export function cosineScore(cosine: number, c: Calibration = CALIBRATION): number {
  const { cosineFloor, cosineFull } = c;
  return Math.min(1, Math.max(0, (cosine - cosineFloor) / (cosineFull - cosineFloor)));
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
}

export function querySignals(q: string, idf = new Map<string, number>()): QuerySignals {
  return { task: q, tokens: tokenize(taskText(q)), stacks: namedStacks(q), idf };
}

/** querySignals with each task word's catalogue IDF (one small statement on the term statistics). */
export async function loadQuerySignals(sql: Sql, q: string): Promise<QuerySignals> {
  const signals = querySignals(q);
  const words = [...new Set(signals.tokens)];
  if (words.length === 0) return signals;
  const rows = await sql<{ word: string; idf: number }[]>`
    select t.word, ln(1 + (c.docs - s.df + 0.5) / (s.df + 0.5))::float8 as idf
    from unnest(${words}::text[]) t(word)
    cross join (select greatest(docs, 1)::float8 as docs from search_corpus) c
    join search_terms s on s.lexeme = any(tsvector_to_array(to_tsvector('english', t.word)))
    where s.df > 0`;
  for (const r of rows) signals.idf.set(r.word, Math.max(signals.idf.get(r.word) ?? 0, r.idf));
  return signals;
}

const prepared = new WeakMap<QuerySignals, PreparedQuery>();
/** The query's words prepared for word matching, once per query and word-pair credit scale. */
function preparedQuery(
  query: QuerySignals,
  floor: number,
  full: number,
  lexiconMatch: number,
): PreparedQuery {
  let p = prepared.get(query);
  if (!p || p.floor !== floor || p.full !== full || p.lexiconMatch !== lexiconMatch) {
    p = prepareQuery(
      sharedWordVectors(),
      query.tokens,
      floor,
      query.idf,
      full,
      lexiconMatch,
      query.task,
    );
    prepared.set(query, p);
  }
  return p;
}

/** One candidate's signals, each 0-1 (stack: share of the named stacks the listing has). */
export interface CandidateSignals {
  lexical: number;
  vector: number;
  meaning: number;
  phrase: number;
  /** share of the query's task concepts (task-lexicon.ts) the listing names; meaning when none */
  concept: number;
  stack: number;
}

export function candidateSignals(
  query: QuerySignals,
  row: CandidateRow,
  c: Calibration = CALIBRATION,
): CandidateSignals {
  const wv = sharedWordVectors();
  const words = listingWords(wv, row);
  const prepared = preparedQuery(query, c.softFloor, c.softFull, c.lexiconMatch);
  const meaning = softMatchWords(wv, prepared, words);
  return {
    lexical: row.lexical,
    vector: cosineScore(row.cosine, c),
    meaning,
    phrase: phraseMatchWords(query.tokens, words),
    concept: conceptCoverage(prepared, words) ?? meaning,
    stack: stackMatch(query.stacks, row.techStack),
  };
}

/** Share of the unsaturated task score kept in the fused score: it only breaks ties. */
const TIE_SHARE = 1e-4;

/** The fused score, 0-1 (before the similarity's × 5). */
export function fusedScore(s: CandidateSignals, c: Calibration = CALIBRATION): number {
  const task =
    c.lexical * s.lexical +
    c.vector * s.vector +
    c.meaning * s.meaning +
    c.phrase * s.phrase +
    c.concept * s.concept;
  const factor = c.stackMiss + (1 - c.stackMiss) * s.stack;
  // The task match saturates first (at similarity 5), then the stack factor applies: a clear
  // match in another stack reads 4 where one in the named stack reads 5, instead of both 5. The
  // small share of the raw task score orders listings that saturate alike.
  // The factor scales the part above `scoreZero` (what similarity reads), so that it means the
  // same share of the similarity whatever the offset.
  const above = Math.max(0, Math.min(task, c.scoreFull) - c.scoreZero);
  return c.scoreZero + above * factor + TIE_SHARE * task;
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

/** The 0-5 similarity of a score, one decimal: 5 from `scoreFull` up. */
export function similarityOf(score: number, c: Calibration = CALIBRATION): number {
  const x = (score - c.scoreZero) / (c.scoreFull - c.scoreZero);
  return Math.round(Math.min(1, Math.max(0, x)) * 50) / 10;
}

/** The final ranking of the database's candidates: 0-5 similarity, best first. */
export function rankCandidates<R extends CandidateRow>(
  query: QuerySignals,
  rows: R[],
  variant: SearchVariant = 'fused',
  c: Calibration = CALIBRATION,
): Array<{ row: R; similarity: number; score: number }> {
  const out = rows.map((row) => {
    const score = scoreCandidate(query, row, variant, c);
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

/*
 * One term of the tech_stack filter: whole stack names, as ranking reads them (stacks.ts). Each
 * word of the term must be in the listing's `stack_words` (migration 230), or another name of its
 * stack that contains it ("node" is met by "Node.js"); "java" does not match "JavaScript", nor
 * "c" "C++" or "C#". A term without any Latin letter or digit is matched as text.
 *
 * Every such name contains the word, so the word is also written as a substring filter on the raw
 * text (except a word only a rewrite produces: "cpp" from "C++"), which the trigram index and the
 * per-term HNSW indexes (vectors.ts, STACK_INDEX) can read: a term with an index of its own is
 * written as that index's predicate, a literal, so that the planner can prove the index applies
 * and walk the graph of that stack's listings only. The literal means what the parameter means
 * (ILIKE folds ASCII case), so a stale list of indexed terms costs speed only.
 */
function stackTermFilter(sql: Sql, term: string, indexed: Set<string> | undefined) {
  const ws = stackWords(term);
  if (ws.length === 0) return sql`i.tech_stack ilike ${'%' + escapeLike(term) + '%'}`;
  let filter = sql`true`;
  for (const w of ws) {
    const names = stackFilterNames(w);
    filter = sql`${filter} and i.stack_words && ${names}::text[]`;
    if (!impliesRawText(w)) continue;
    // a word (letters and digits) STACK_TERM admits: no quote, backslash, % or _ reaches the SQL
    if (indexed?.has(w) && STACK_TERM.test(w))
      filter = sql`${filter} and ${sql.unsafe(`i.tech_stack ilike '%${w}%'`)}`;
    else filter = sql`${filter} and i.tech_stack ilike ${'%' + w + '%'}`;
  }
  return filter;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
