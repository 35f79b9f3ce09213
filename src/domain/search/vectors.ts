import pgvector from 'pgvector';
import type { Db, Sql } from '../../db/index.js';
import { SCHEMA_LOCK_KEY } from '../../db/migrate.js';

/**
 * Listing vectors live in `items.embedding` (an untyped `vector`) with their dimension beside it.
 * Each dimension in use gets its own partial HNSW index over `embedding::vector(N)` restricted to
 * active items, so changing provider or dimension needs no schema change: `npm run reindex`
 * recomputes the vectors and builds the index for the new dimension.
 *
 * A vector's type modifier cannot be a bind parameter, so the dimension is spliced into the SQL
 * here, and only here, after being checked to be a small positive integer.
 */
export function vectorType(sql: Db, dims: number) {
  if (!Number.isInteger(dims) || dims < 1 || dims > 16_000)
    throw new Error(`bad vector dimension ${dims}`);
  return sql.unsafe(`vector(${dims})`);
}

export function indexName(dims: number): string {
  return `items_embedding_hnsw_${dims}`;
}

/**
 * Creates the HNSW index for this dimension if it does not exist yet (idempotent). Every process
 * calls this at start, so it runs under the schema lock: two `create index if not exists` racing on
 * a real server both build the index and one then fails on the catalog's unique index (pg_class).
 */
export async function ensureVectorIndex(sql: Sql, dims: number): Promise<void> {
  vectorType(sql, dims);
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
    await tx.unsafe(
      `create index if not exists ${indexName(dims)} on items
         using hnsw ((embedding::vector(${dims})) vector_cosine_ops) with (m = 16, ef_construction = 64)
         where status = 'active' and embedding_dims = ${dims}`,
    );
  });
}

/** pgvector's text form (via the pgvector package); sent as a parameter cast to the typed vector. */
export function toVectorLiteral(v: number[]): string {
  return pgvector.toSql(v.map((x) => (Number.isFinite(x) ? Math.fround(x) : 0))) as string;
}
