import type { Db, Sql } from '../../db/index.js';
import { listingText, type Embedder } from '../../embeddings/embedder.js';
import { toVectorLiteral, vectorType } from './vectors.js';

/** Computes and stores the vector of one listing (called when it turns active). */
export async function indexItem(sql: Db, embedder: Embedder, itemId: string): Promise<void> {
  const [item] = await sql<
    { title: string; description: string; techStack: string; promptSummary: string | null }[]
  >`
    select title, description, tech_stack, prompt_summary from items where id = ${itemId}`;
  if (!item) return;
  const [vector] = await embedder.embed([listingText(item)]);
  await sql`
    update items set
      embedding = ${toVectorLiteral(vector!)}::${vectorType(sql, embedder.dimensions)},
      embedding_model = ${embedder.model},
      embedding_dims = ${embedder.dimensions}
    where id = ${itemId}`;
}

export interface ReindexProgress {
  done: number;
  total: number;
}

/**
 * Recomputes the vector of every listing that is not purged and whose vector was made by another
 * model or dimension (or all of them with `force`). Works in batches with a keyset cursor, so it
 * can be interrupted and run again; reports progress after each batch.
 */
export async function reindexAll(
  sql: Sql,
  embedder: Embedder,
  opts: { force?: boolean; batchSize?: number; onProgress?: (p: ReindexProgress) => void } = {},
): Promise<ReindexProgress> {
  const batchSize = opts.batchSize ?? 256;
  const stale = (force: boolean) =>
    force
      ? sql`true`
      : sql`(embedding_model is distinct from ${embedder.model} or embedding_dims is distinct from ${embedder.dimensions})`;
  const [{ total } = { total: 0 }] = await sql<{ total: number }[]>`
    select count(*) as total from items where status <> 'deleted' and ${stale(!!opts.force)}`;
  let done = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  opts.onProgress?.({ done, total });
  for (;;) {
    const rows = await sql<
      {
        id: string;
        title: string;
        description: string;
        techStack: string;
        promptSummary: string | null;
      }[]
    >`
      select id, title, description, tech_stack, prompt_summary from items
      where status <> 'deleted' and id > ${after} and ${stale(!!opts.force)}
      order by id limit ${batchSize}`;
    if (rows.length === 0) break;
    const vectors = await embedder.embed(rows.map(listingText));
    const values = rows.map((r, i) => [r.id, toVectorLiteral(vectors[i]!)]);
    await sql`
      update items set
        embedding = v.e::${vectorType(sql, embedder.dimensions)},
        embedding_model = ${embedder.model},
        embedding_dims = ${embedder.dimensions}
      from (values ${sql(values)}) as v(id, e)
      where items.id = v.id::uuid`;
    done += rows.length;
    after = rows[rows.length - 1]!.id;
    opts.onProgress?.({ done, total: Math.max(total, done) });
  }
  return { done, total };
}
