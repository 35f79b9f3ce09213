import pgvector from 'pgvector';
import type { Db, Sql } from '../../db/index.js';
import { buildIndex, dropIndex, withBuildLock, type IndexBuildOptions } from './index-builds.js';
import { impliesRawText, stackFilterNames, stackWords } from './stacks.js';

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
 * Builds the HNSW index for this dimension if it is missing, then the per-stack and price-ceiling
 * ones the catalogue calls for (idempotent). Every process calls this at start: how a build runs
 * without stopping the writes of a serving fleet, and why two processes never build the same
 * index, is index-builds.ts's.
 */
export async function ensureVectorIndex(
  sql: Sql,
  dims: number,
  opts: IndexBuildOptions = {},
): Promise<void> {
  vectorType(sql, dims);
  await withBuildLock(sql, opts, undefined, async (held) => {
    await buildIndex(
      sql,
      indexName(dims),
      `on items using hnsw ((embedding::vector(${dims})) vector_cosine_ops) with (${HNSW_PARAMS})
         where status = 'active' and embedding_dims = ${dims}`,
      held,
    );
    await ensureStackIndexes(sql, dims, held);
  });
}

const HNSW_PARAMS = 'm = 16, ef_construction = 64';

/**
 * Stack filters and the vector graph. A broad stack filter (one listing in ten) walked through the
 * whole catalogue's graph visits about ten listings for each one it keeps, and ranking the filtered
 * set exactly costs one distance per listing of it: both grow with the catalogue. A stack term
 * that many listings name therefore gets an HNSW index of its own, partial on exactly the search
 * filter's predicate (`tech_stack ilike '%term%'`), so that a filter on it walks a graph of only
 * its listings (search.ts writes such a term as that literal predicate, which lets the planner
 * prove the index applies).
 *
 * A term qualifies when at least `minListings` active listings name it as one of the
 * comma-separated entries of their stack (fewer are ranked exactly, cheaply) and its filter keeps
 * at most `maxShare` of the catalogue (a filter that keeps half loses little on the whole graph);
 * the `maxTerms` most named terms at most. Terms are plain words of a stack (letters, digits and
 * `+#.-`, up to 16), so they can be written into SQL as literals. Indexes are created at start
 * and by `npm run reindex` (a term that becomes common later gets its index at the next start);
 * an index whose term became rare stays, which costs only its upkeep.
 *
 * A term that is one word only a rewrite produces ("C#" is "csharp", "C++" "cpp", "Node.js"
 * "nodejs": stacks.ts, impliesRawText) has no substring that every listing of it holds, so its
 * filter is the stack-words test alone, and its index is partial on exactly that test
 * (`stack_words && '{csharp}'`, a "words" index, named by the word). Before, such a term got a
 * substring index the filter could never use, and a C# filter walked the whole catalogue's graph.
 */
export const STACK_INDEX = { minListings: 2000, maxShare: 0.5, maxTerms: 32 };
export const STACK_TERM = /^[a-z0-9+#.-]{1,16}$/;

export function stackIndexName(dims: number, term: string): string {
  return `${stackIndexPrefix(dims)}${Buffer.from(term).toString('hex')}`;
}

function stackIndexPrefix(dims: number): string {
  return `items_hnsw_${dims}_stack_`; // + up to 32 hex digits: within Postgres's 63
}

/** The index of a stack word only a rewrite produces (see STACK_INDEX). */
export function stackWordIndexName(dims: number, word: string): string {
  return `${stackWordIndexPrefix(dims)}${Buffer.from(word).toString('hex')}`;
}

function stackWordIndexPrefix(dims: number): string {
  return `items_hnsw_${dims}_words_`; // + up to 32 hex digits: within Postgres's 63
}

/** A stack word fit to be written into SQL as a literal (stack words are [a-z0-9]+ by migration 230). */
const STACK_WORD = /^[a-z0-9]{1,16}$/;

/**
 * The search filter's test for one stack word as SQL text (a literal, so that the planner can
 * prove a words index applies): the same in the index's predicate and in the query (search.ts).
 * Undefined for a word that cannot be written so.
 */
export function stackWordsPredicate(word: string): string | undefined {
  const names = stackFilterNames(word);
  if (!STACK_WORD.test(word) || !names.every((n) => STACK_WORD.test(n))) return undefined;
  return `stack_words && '{${names.join(',')}}'::text[]`;
}

/** The one rewritten stack word a term stands for ("c#" → "csharp"), if it is one. */
function rewrittenWord(term: string): string | undefined {
  const ws = stackWords(term);
  return ws.length === 1 && !impliesRawText(ws[0]!) ? ws[0] : undefined;
}

/**
 * Creates the per-term indexes (see STACK_INDEX) that are missing and replaces a words index whose
 * word test changed (a stack's aliases, stackFilterNames); returns the indexed terms.
 */
export async function ensureStackIndexes(
  sql: Sql,
  dims: number,
  opts: IndexBuildOptions = {},
): Promise<string[]> {
  vectorType(sql, dims);
  return withBuildLock(sql, opts, [], async (held) => {
    const made = await stackIndexes(sql, dims, held);
    indexedTerms.get(sql)?.delete(dims);
    await ensurePriceIndexes(sql, dims, held);
    return made;
  });
}

async function stackIndexes(sql: Sql, dims: number, opts: IndexBuildOptions): Promise<string[]> {
  const { minListings, maxShare, maxTerms } = STACK_INDEX;
  // the catalogue's reads, each a scan of its active listings, on the build lock's connection
  // when there is one (without a statement timeout: withBuildLock)
  const read = opts.held ?? sql;
  const [all] = await read<{ active: number }[]>`
    select count(*)::int as active from items where status = 'active' and embedding_dims = ${dims}`;
  const active = all?.active ?? 0;
  if (active < minListings) return [];
  const named = await read<{ term: string }[]>`
    select term from (
      select distinct i.id, lower(btrim(e)) as term
      from items i, unnest(string_to_array(i.tech_stack, ',')) e
      where i.status = 'active' and i.embedding_dims = ${dims}
    ) t
    where term ~ ${STACK_TERM.source}
    group by term having count(*) >= ${minListings}
    order by count(*) desc, term limit ${maxTerms}`;
  const existing = await readIndexedStackTerms(read, dims);
  // an earlier build made substring indexes for rewritten words ("node.js", "c#"), which no
  // filter can use (the filter tests the word): every write paid for them, so they go
  for (const term of existing) {
    if (rewrittenWord(term) === undefined) continue;
    // the name is the term in hex: nothing else reaches the SQL text
    await dropIndex(sql, stackIndexName(dims, term), opts);
    existing.delete(term);
  }
  // a words index is known by its word, but its predicate is the word's names (aliases) of the
  // release that built it: one whose test is no longer the filter's can serve no filter, so it
  // goes, and is built again below with today's test if the word still qualifies
  const existingWords = new Set<string>();
  for (const [word, def] of await readStackWordIndexes(read, dims)) {
    const predicate = stackWordsPredicate(word);
    if (predicate !== undefined && def.includes(predicate)) existingWords.add(word);
    else await dropIndex(sql, stackWordIndexName(dims, word), opts);
  }
  const terms: string[] = [];
  for (const { term } of named) {
    if (!STACK_TERM.test(term)) continue;
    const word = rewrittenWord(term);
    if (word !== undefined) {
      const predicate = stackWordsPredicate(word);
      if (predicate === undefined || terms.includes(word)) continue;
      if (existingWords.has(word)) {
        terms.push(word);
        continue;
      }
      const [filter] = await read<{ kept: number }[]>`
        select count(*)::int as kept from items
        where status = 'active' and embedding_dims = ${dims}
          and stack_words && ${stackFilterNames(word)}::text[]`;
      if ((filter?.kept ?? 0) > maxShare * active) continue;
      // the word and its names are checked above: letters and digits only reach the SQL text
      const outcome = await buildIndex(
        sql,
        stackWordIndexName(dims, word),
        `on items using hnsw ((embedding::vector(${dims})) vector_cosine_ops) with (${HNSW_PARAMS})
           where status = 'active' and embedding_dims = ${dims} and ${predicate}`,
        opts,
      );
      if (outcome !== 'skipped') terms.push(word);
      continue;
    }
    if (existing.has(term)) {
      terms.push(term); // made by an earlier start: no need to count its filter again
      continue;
    }
    const [filter] = await read<{ kept: number }[]>`
      select count(*)::int as kept from items
      where status = 'active' and embedding_dims = ${dims} and tech_stack ilike ${`%${term}%`}`;
    if ((filter?.kept ?? 0) > maxShare * active) continue;
    // the term is checked above: no quote, backslash, % or _ can reach the SQL text
    const outcome = await buildIndex(
      sql,
      stackIndexName(dims, term),
      `on items using hnsw ((embedding::vector(${dims})) vector_cosine_ops) with (${HNSW_PARAMS})
         where status = 'active' and embedding_dims = ${dims} and tech_stack ilike '%${term}%'`,
      opts,
    );
    if (outcome !== 'skipped') terms.push(term);
  }
  return terms;
}

/**
 * Price ceilings and the vector graph. A buyer's budget (`max_price`) is the commonest filter, and
 * a broad one walked through the whole catalogue's graph visits four listings for each it keeps
 * when a quarter of the catalogue fits the range (at 100,000 listings, ~3,500 buffers a search
 * against ~1,500 unfiltered). So the cheapest quarter and half of the catalogue get an HNSW index
 * each, partial on `price_micro <= bound`, the bound being that share's price rounded up to two
 * significant digits (a whole number of cents at least). The planner proves such an index applies
 * to any search whose `max_price` is at or below its bound (filtered searches are planned with
 * their values, search.ts), and walks the smallest: the range then keeps most of what it visits.
 *
 * Made from `minListings` active listings on (fewer are ranked exactly, cheaply), at start and by
 * `npm run reindex`. A bound within a factor of `keepWithin` of an existing price index's reuses
 * it, so that a drifting price distribution does not rebuild at every start; an index whose bound
 * is no longer within that band of a wanted one is dropped once every wanted bound has a valid
 * index (until then it still serves the budgets it proves), so that drift does not pile them up.
 */
export const PRICE_INDEX = { minListings: 2000, shares: [0.25, 0.5], keepWithin: 1.5 };

export function priceIndexName(dims: number, boundMicro: number): string {
  return `${priceIndexPrefix(dims)}${boundMicro}`;
}

function priceIndexPrefix(dims: number): string {
  return `items_hnsw_${dims}_price_le_`;
}

/** Rounds a price up to two significant digits, and to whole cents (10,000 micro-USDC) at least. */
export function priceBound(micro: number): number {
  const step = Math.max(10_000, 10 ** (Math.floor(Math.log10(Math.max(micro, 1))) - 1));
  return Math.ceil(micro / step) * step;
}

/**
 * Creates the price-ceiling indexes (see PRICE_INDEX) that are missing and drops those no longer
 * wanted; returns the bounds indexed.
 */
export async function ensurePriceIndexes(
  sql: Sql,
  dims: number,
  opts: IndexBuildOptions = {},
): Promise<number[]> {
  vectorType(sql, dims);
  return withBuildLock(sql, opts, [], (held) => priceIndexes(sql, dims, held));
}

async function priceIndexes(sql: Sql, dims: number, opts: IndexBuildOptions): Promise<number[]> {
  const { minListings, shares, keepWithin } = PRICE_INDEX;
  // on the build lock's connection when there is one, as stackIndexes' reads
  const read = opts.held ?? sql;
  const [all] = await read<{ active: number }[]>`
    select count(*)::int as active from items where status = 'active' and embedding_dims = ${dims}`;
  if ((all?.active ?? 0) < minListings) return [];
  const quantiles = await read<{ price: number }[]>`
    select unnest(percentile_disc(${shares}::float8[]) within group (order by price_micro))::bigint as price
    from items where status = 'active' and embedding_dims = ${dims}`;
  const prefix = priceIndexPrefix(dims);
  const toBound = (name: string) => Number(name.slice(prefix.length));
  const present = (await readIndexes(read, prefix)).filter((r) => {
    const b = toBound(r.name);
    return Number.isSafeInteger(b) && b > 0;
  });
  // reused: the valid ones only (an invalid one is a build in progress or one that died)
  const bounds = present.filter((r) => r.valid).map((r) => toBound(r.name));
  const kept: number[] = [];
  let complete = true;
  for (const { price } of quantiles) {
    const bound = priceBound(Number(price));
    const near = bounds.find((b) => b <= bound * keepWithin && b * keepWithin >= bound);
    if (near !== undefined) {
      if (!kept.includes(near)) kept.push(near);
      continue;
    }
    // an integer: nothing else reaches the SQL text
    if (!Number.isSafeInteger(bound) || bound <= 0) continue;
    const outcome = await buildIndex(
      sql,
      priceIndexName(dims, bound),
      `on items using hnsw ((embedding::vector(${dims})) vector_cosine_ops) with (${HNSW_PARAMS})
         where status = 'active' and embedding_dims = ${dims} and price_micro <= ${bound}`,
      opts,
    );
    if (outcome === 'skipped') {
      complete = false; // stopping, or another process builds: the drifted ones stay until it is done
      continue;
    }
    bounds.push(bound);
    kept.push(bound);
  }
  if (complete) {
    for (const { name } of present) {
      if (!kept.includes(toBound(name))) await dropIndex(sql, name, opts);
    }
  }
  return kept;
}

/**
 * The stack terms of this dimension that have an index of their own (see STACK_INDEX): substring
 * terms ("python") and rewritten words ("csharp"), which never meet (a rewritten word is never
 * written as a substring filter, search.ts). Read from the catalog at most once a minute per
 * connection pool (ensureStackIndexes refreshes it at once).
 */
export function indexedStackTerms(sql: Sql, dims: number): Promise<Set<string>> {
  let byDims = indexedTerms.get(sql);
  if (!byDims) indexedTerms.set(sql, (byDims = new Map()));
  const hit = byDims.get(dims);
  if (hit && Date.now() - hit.at < INDEXED_TERMS_TTL_MS) return hit.terms;
  const terms = Promise.all([readIndexedStackTerms(sql, dims), readIndexedStackWords(sql, dims)])
    .then(([t, w]) => new Set([...t, ...w]))
    .catch(() => new Set<string>());
  byDims.set(dims, { at: Date.now(), terms });
  return terms;
}

const INDEXED_TERMS_TTL_MS = 60_000;
const indexedTerms = new WeakMap<Sql, Map<number, { at: number; terms: Promise<Set<string>> }>>();

async function readIndexedStackTerms(sql: Sql, dims: number): Promise<Set<string>> {
  const terms = await readIndexSuffixes(sql, stackIndexPrefix(dims));
  return new Set(terms.filter((t) => STACK_TERM.test(t)));
}

async function readIndexedStackWords(sql: Sql, dims: number): Promise<Set<string>> {
  return new Set((await readStackWordIndexes(sql, dims)).keys());
}

/** The words indexes of this dimension, valid ones only, by word, with their definitions. */
async function readStackWordIndexes(sql: Sql, dims: number): Promise<Map<string, string>> {
  const prefix = stackWordIndexPrefix(dims);
  const words = new Map<string, string>();
  for (const r of await readIndexes(sql, prefix)) {
    const word = Buffer.from(r.name.slice(prefix.length), 'hex').toString();
    if (r.valid && STACK_WORD.test(word)) words.set(word, r.def);
  }
  return words;
}

async function readIndexSuffixes(sql: Sql, prefix: string): Promise<string[]> {
  return (await readIndexes(sql, prefix))
    .filter((r) => r.valid)
    .map((r) => Buffer.from(r.name.slice(prefix.length), 'hex').toString());
}

/**
 * The indexes on items of this schema whose names start with `prefix`. An invalid one (a build in
 * progress, or one that died) serves no query: readers of what is indexed skip it.
 */
async function readIndexes(
  sql: Sql,
  prefix: string,
): Promise<Array<{ name: string; valid: boolean; def: string }>> {
  return sql<Array<{ name: string; valid: boolean; def: string }>>`
    select c.relname as name, i.indisvalid as valid, pg_get_indexdef(c.oid) as def
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = 'items'::regclass and c.relnamespace = current_schema()::regnamespace
      and starts_with(c.relname, ${prefix})`;
}

/** pgvector's text form (via the pgvector package); sent as a parameter cast to the typed vector. */
export function toVectorLiteral(v: number[]): string {
  return pgvector.toSql(v.map((x) => (Number.isFinite(x) ? Math.fround(x) : 0))) as string;
}
