import { BoundedCache } from '../../bounded-cache.js';
import type { Db, Sql, SqlFragment } from '../../db/index.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { toMicro } from '../../wire/money.js';
import {
  publicColumns,
  sellerPayable,
  toPublicItem,
  type PublicItemRow,
} from '../items/public-item.js';
import { SEARCH_LIMITS, type SearchQuery, type SearchResult } from '../../wire/items.js';
import { calibrationFor, SIMILARITY_FLOOR } from './calibration.js';
import {
  loadQuerySignals,
  querySignals,
  rankCandidates,
  type CandidateRow,
  type SearchVariant,
} from './rank.js';
import {
  impliesRawText,
  listedStacks,
  stackFilterNames,
  stackWords,
  taskText,
  type CodeMix,
} from './stacks.js';
import { conceptEntryWords } from './task-lexicon.js';
import type { Telemetry } from '../telemetry.js';
import {
  indexedStackTerms,
  STACK_TERM,
  stackWordsPredicate,
  toVectorLiteral,
  vectorType,
} from './vectors.js';

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
/**
 * Listings whose title names a task concept of the query (task-lexicon.ts, conceptEntryWords) by a
 * selective word, scored at most; the best `CONCEPT_KEEP` of them by the pre-ranking join the
 * candidates beyond `CANDIDATES`, so a listing that shares no word with a paraphrase still reaches
 * the final ranking, which reads the concepts.
 */
const CONCEPT_POOL = 100;
const CONCEPT_KEEP = 20;

/** BM25 parameters (Robertson & Zaragoza): term-frequency saturation and length normalisation. */
export const BM25 = { k1: 1.2, b: 0.5 };
/**
 * BM25F-style field weights: a term's frequency in a listing counts each occurrence by its field
 * (tsvector weight class, migration 030).
 */
export const FIELD_WEIGHTS = { title: 3, stack: 2, description: 1, promptSummary: 0.5 };

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
  // the query's word statistics with the candidates: sent in the same write, on the same connection
  const [rows, signals] = await candidatesWith(sql, embedder, query, opts, (tx) =>
    variant === 'fused' ? loadQuerySignals(tx, query.q) : Promise.resolve(querySignals(query.q)),
  );
  const floor = opts.floor ?? SIMILARITY_FLOOR;
  // the tech_stack filter names stacks too: among the listings that declare them, the one whose
  // code is in them first (a declaration the measured code contradicts counts less, stacks.ts)
  for (const s of listedStacks(query.tech_stack ?? ''))
    if (!signals.stacks.includes(s)) signals.stacks.push(s);
  const ranked = rankCandidates(signals, rows, variant, calibrationFor(embedder.model))
    .filter((r) => r.similarity >= floor && r.similarity > 0)
    .slice(0, SEARCH_LIMIT);
  const items = await publicRows(
    sql,
    ranked.map((r) => r.row.id),
    opts.payableOnly === true,
  );
  const results: SearchResult[] = [];
  // a listing deleted, taken down or made unpayable since its candidate row was read is left out
  for (const r of ranked) {
    const row = items.get(r.row.id);
    if (row) results.push({ ...toPublicItem(row, opts.ratingThreshold), similarity: r.similarity });
  }
  opts.telemetry?.searched(results.length, (performance.now() - started) / 1000);
  return results;
}

/**
 * The public projection of the ranked results only (at most SEARCH_LIMIT), after the ranking: the
 * candidates carry what ranking reads, not the seller, chains, ratings and preview of all of them.
 * A separate statement, so the candidates' conditions are checked again here: a listing deleted
 * or taken down (its row stays, `status` changes) between the two must not be answered.
 */
async function publicRows(
  sql: Sql,
  ids: string[],
  payableOnly: boolean,
): Promise<Map<string, PublicItemRow>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<PublicItemRow[]>`
    select ${publicColumns(sql)}
    from items i join agents a on a.id = i.seller_id
    where i.id = any(${ids}::uuid[]) and i.status = 'active'
      ${payableOnly ? sql`and ${sellerPayable(sql)}` : sql``}`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** The database's part: candidates with their lexical (BM25, 0-1) and cosine scores. */
export async function searchCandidates(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
): Promise<CandidateRow[]> {
  const [rows] = await candidatesWith(sql, embedder, query, opts, async () => undefined);
  return rows;
}

/** searchCandidates, with `also` run in the same transaction, its statement sent with theirs. */
async function candidatesWith<T>(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
  also: (db: Db) => Promise<T>,
): Promise<[CandidateRow[], T]> {
  const statements = await candidateStatements(sql, embedder, query, opts);
  const out = await sql.begin(async (tx) => {
    // sent together: one round trip for all (the settings apply to the query, which the server
    // plans after them)
    const [settings, candidates] = statements(tx);
    const [other, set, rows] = await Promise.allSettled([
      also(tx),
      settings.execute(),
      candidates.execute(),
    ]);
    if (other.status === 'rejected') throw other.reason;
    if (set.status === 'rejected') throw set.reason;
    if (rows.status === 'rejected') throw rows.reason;
    return { rows: rows.value as unknown as CandidateRow[], other: other.value };
  });
  for (const row of out.rows as Array<CandidateRow & { codeMix: unknown }>)
    if (typeof row.codeMix === 'string') row.codeMix = JSON.parse(row.codeMix) as CodeMix;
  return [out.rows, out.other as T];
}

/** The candidates' statements on a connection: its transaction-local settings, then the query. */
type CandidateStatements = (db: Db) => [settings: SqlFragment, candidates: SqlFragment];

async function candidateStatements(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
): Promise<CandidateStatements> {
  const variant = opts.variant ?? 'fused';
  const task = variant === 'fused' ? taskText(query.q) : query.q;
  const dims = embedder.dimensions;
  const qlit = await queryVector(embedder, task);
  const indexed = query.tech_stack?.trim() ? await indexedStackTerms(sql, dims) : undefined;
  const concepts = variant === 'fused' ? conceptEntryWords(task).join(' ') : '';
  return (tx) => candidateSql(tx, query, opts, task, concepts, dims, qlit, indexed);
}

/** Query vectors (as literals, a few kB each) a process keeps per embedder: popular searches recur. */
const QUERY_VECTORS = 256;
const queryVectors = new WeakMap<Embedder, BoundedCache<string, string>>();

/** The query's vector literal, embedded once per embedder and text while it is kept. */
async function queryVector(embedder: Embedder, task: string): Promise<string> {
  let kept = queryVectors.get(embedder);
  if (!kept) queryVectors.set(embedder, (kept = new BoundedCache(QUERY_VECTORS)));
  let qlit = kept.peek(task);
  if (qlit === undefined) {
    const [qv] = await embedder.embed([task]);
    kept.set(task, (qlit = toVectorLiteral(qv!)));
  }
  return qlit;
}

function candidateSql(
  sql: Db,
  query: SearchQuery,
  opts: SearchOptions,
  task: string,
  concepts: string,
  dims: number,
  qlit: ReturnType<typeof toVectorLiteral>,
  indexed: Set<string> | undefined,
): [SqlFragment, SqlFragment] {
  const variant = opts.variant ?? 'fused';
  const vt = vectorType(sql, dims);
  // literal, not a parameter: the partial HNSW index is only provable with a constant predicate
  const dimsLit = sql.unsafe(String(dims));

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
  const tx = sql;
  return [
    tx`select set_config('hnsw.ef_search', ${String(Math.max(opts.efSearch, VECTOR_POOL))}, true),
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
                    set_config('jit', 'off', true)`,
    tx`
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
        -- the selective terms as one OR query
        select ${orTsquery(tx, tx`lexeme`)} as tq
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
      con_rare as materialized (
        -- the selective one-word entries of the query's task concepts
        select ${orTsquery(tx, tx`t.lexeme`)} as tq
        from unnest(tsvector_to_array(to_tsvector('english', ${concepts}))) t(lexeme)
        join search_terms s on s.lexeme = t.lexeme
        where s.df > 0 and s.df <= ${LEX_DF_CAP}
      ),
      con_pool as materialized (
        -- in a title: read through the titles' own index (migration 463), so only listings whose
        -- title holds a word are read, not every one that mentions it (search_document's index
        -- has no weight classes: 'word':A read them all and dropped those without it in the title)
        select i.id from items i, con_rare r
        where r.tq is not null and ${filters} and to_tsvector('english', i.title) @@ r.tq
        limit ${CONCEPT_POOL}
      ),
      cand as (select id from vec_pool union select id from lex_pool union select id from con_pool),
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
      ),
      pre as (
        -- pre-ranking of the candidates (the final ranking refines it); the concept pool's best
        -- CONCEPT_KEEP join the first CANDIDATES
        select sc.*, cp.id is not null as con,
          row_number() over (order by ${lw}::float8 * coalesce(sc.lexical, 0) + ${cw}::float8 * sc.cosine desc, sc.id) as r
        from scored sc left join con_pool cp on cp.id = sc.id
        -- Revision A: payable on at least one chain (checked on the few candidates, not per
        -- scanned row); Revision B shows a listing with an empty available_chains (spec 2.1)
        ${opts.payableOnly ? tx`where exists (select 1 from items i where i.id = sc.id and ${sellerPayable(tx)})` : tx``}
      ),
      kept as (select p.*, row_number() over (partition by p.con order by p.r) as rc from pre p)
      -- what the final ranking reads; the public projection is read for its results only
      select i.id, i.title, i.description, i.prompt_summary, i.tech_stack,
        coalesce(sc.lexical, 0)::float8 as lexical, sc.cosine::float8 as cosine,
        -- the languages the scan measured, for the stack factor (stacks.ts, stackMatch)
        -- (as text, parsed below: its keys need no renaming, unlike a json column's)
        (select json_build_object('lines', p.lines, 'languages', p.preview->'languages')::text
         from item_previews p where p.item_id = i.id) as code_mix
      from kept sc join items i on i.id = sc.id
      where sc.r <= ${CANDIDATES} or (sc.con and sc.rc <= ${CONCEPT_KEEP})
      order by sc.r`,
  ];
}

/**
 * The lexemes of `lexeme` (a column of the rows aggregated) as one OR tsquery, each quoted as
 * tsquery input wants (a quote doubled, a backslash escaped). An aggregate: null over no row.
 */
export function orTsquery(sql: Db, lexeme: SqlFragment): SqlFragment {
  return sql`string_agg('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery`;
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
 * and walk the graph of that stack's listings only. A rewritten word's index is partial on its
 * stack-words test instead, written as a literal alike. The literal means what the parameter means
 * (ILIKE folds ASCII case), so a stale list of indexed terms costs speed only.
 */
function stackTermFilter(sql: Db, term: string, indexed: Set<string> | undefined) {
  const ws = stackWords(term);
  if (ws.length === 0) return sql`i.tech_stack ilike ${'%' + escapeLike(term) + '%'}`;
  let filter = sql`true`;
  for (const w of ws) {
    const names = stackFilterNames(w);
    if (!impliesRawText(w)) {
      // a word only a rewrite produces ("csharp" from "C#") with an index of its own: written as
      // that index's predicate (vectors.ts, stackWordsPredicate), which means what the parameter means
      const predicate = indexed?.has(w) ? stackWordsPredicate(w) : undefined;
      filter = predicate
        ? sql`${filter} and ${sql.unsafe(`i.${predicate}`)}`
        : sql`${filter} and i.stack_words && ${names}::text[]`;
      continue;
    }
    filter = sql`${filter} and i.stack_words && ${names}::text[]`;
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
