import type { Sql } from '../../db/index.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { usdcToMicro } from '../chains.js';
import { publicColumns, toPublicItem, type PublicItemRow } from '../items/public-item.js';
import { SEARCH_LIMITS, type SearchQuery, type SearchResult } from '../items/schemas.js';
import { toVectorLiteral, vectorType } from './vectors.js';

export const SEARCH_LIMIT = SEARCH_LIMITS.results;
/** Candidates taken from each ranker before fusion. */
const CANDIDATES = 60;
/**
 * Nearest vectors fetched once: the vector ranker's candidates and, for common terms, the full-text
 * pool. Kept within `hnsw.ef_search`, since rows past it cost an iterative re-scan of the graph.
 */
const VECTOR_POOL = 100;
/**
 * Full-text matches ranked at most. With more matches than this, only the matches among the
 * nearest vectors are ranked, which bounds the work of very common terms at any catalogue size.
 */
const FTS_RANK_CAP = 100;
/** Reciprocal rank fusion constant (Cormack et al.). */
const RRF_K = 60;

export interface SearchOptions {
  efSearch: number;
  ratingThreshold: number;
  /** Exact scan instead of the HNSW index (recall measurement and debugging; slow on large catalogues). */
  exact?: boolean;
  /** Ranking variant, for the relevance benchmark; searches use `fused`. */
  variant?: SearchVariant;
}

export type SearchVariant = 'lexical' | 'vector' | 'fused';

/**
 * Hybrid search: pgvector cosine over listing vectors (HNSW, iterative scan so filters still fill
 * the page) and Postgres full-text ranking, fused. The fused score blends the normalised
 * reciprocal-rank-fusion score with the cosine similarity, so that a listing found by both rankers
 * leads and an absolute relevance still shows: `similarity = round(5 × (½·rrf/rrf_max + ½·cos⁺), 1)`.
 */
export async function searchItems(
  sql: Sql,
  embedder: Embedder,
  query: SearchQuery,
  opts: SearchOptions,
): Promise<SearchResult[]> {
  const variant = opts.variant ?? 'fused';
  const [qv] = await embedder.embed([query.q]);
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
    filters = sql`${filters} and i.price_micro >= ${usdcToMicro(query.min_price)}`;
  if (query.max_price !== undefined)
    filters = sql`${filters} and i.price_micro <= ${usdcToMicro(query.max_price)}`;
  for (const t of terms)
    filters = sql`${filters} and i.tech_stack ilike ${'%' + escapeLike(t) + '%'}`;

  const filtered =
    terms.length > 0 || query.min_price !== undefined || query.max_price !== undefined;
  const rows = await sql.begin(async (tx) => {
    await tx`select set_config('hnsw.ef_search', ${String(Math.max(opts.efSearch, VECTOR_POOL))}, true),
                    set_config('hnsw.iterative_scan', 'relaxed_order', true),
                    set_config('enable_indexscan', ${opts.exact ? 'off' : 'on'}, true),
                    -- the generic plan cannot see the query's selectivity: keep it on the indexes
                    set_config('enable_seqscan', ${opts.exact ? 'on' : 'off'}, true),
                    -- unfiltered: one cached plan per statement shape (planning costs more than running
                    -- it); filtered: planned with the values, so a selective stack or price filter is
                    -- read through its index and ranked exactly instead of post-filtering the graph
                    set_config('plan_cache_mode', ${filtered ? 'force_custom_plan' : 'force_generic_plan'}, true)`;
    return tx<(PublicItemRow & { score: number })[]>`
      ${opts.exact ? tx`/* exact scan: its own cached plan */` : tx``}
      with qv as materialized (select ${qlit}::${vt} as v),
      vec_pool as materialized (
        select i.id, i.embedding::${vt} <=> (select v from qv) as dist
        from items i
        where ${filters} and i.embedding_dims = ${dimsLit}
        order by i.embedding::${vt} <=> (select v from qv)
        limit ${VECTOR_POOL}
      ),
      vec as (
        select id, r from (select id, row_number() over (order by dist, id) as r from vec_pool) s
        where r <= ${CANDIDATES}
      ),
      matched as materialized (
        select i.id from items i, plainto_tsquery('english', ${query.q}) tq
        where ${filters} and i.search_document @@ tq
        limit ${FTS_RANK_CAP + 1}
      ),
      fts_pool as (
        -- few matches: rank them all; many: rank those among the nearest vectors, so the work
        -- stays bounded whatever the catalogue size
        select id from matched where (select count(*) from matched) <= ${FTS_RANK_CAP}
        union all
        select id from vec_pool where (select count(*) from matched) > ${FTS_RANK_CAP}
      ),
      fts as (
        select id, row_number() over (order by rank desc, id) as r from (
          select i.id, ts_rank(i.search_document, tq) as rank
          from fts_pool p join items i on i.id = p.id, plainto_tsquery('english', ${query.q}) tq
          where i.search_document @@ tq
          order by rank desc, i.id
          limit ${CANDIDATES}
        ) s
      ),
      fused as (
        select id, sum(1.0 / (${RRF_K} + r)) as rrf
        from (select id, r from vec where ${variant !== 'lexical'} union all select id, r from fts where ${variant !== 'vector'}) u
        group by id
      ),
      scored as (
        select f.id,
          0.5 * least(1.0, f.rrf / (2.0 / ${RRF_K + 1}))
          + 0.5 * greatest(0.0, coalesce(1 - (i.embedding::${vt} <=> (select v from qv)), 0.0)) as score
        from fused f join items i on i.id = f.id
        where i.embedding_dims = ${dimsLit} or i.embedding_dims is null
      )
      select * from (
        select ${publicColumns(tx)}, sc.score::float8 as score
        from scored sc join items i on i.id = sc.id join agents a on a.id = i.seller_id
      ) r
      -- payable on at least one chain (checked on the few fused candidates, not per scanned row)
      where cardinality(r.available_chains) > 0
      order by r.score desc, r.id
      limit ${SEARCH_LIMIT}`;
  });

  return rows.map((r) => ({
    ...toPublicItem(r, opts.ratingThreshold),
    similarity: Math.min(5, Math.max(0, Math.round(r.score * 50) / 10)),
  }));
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
