import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureStackIndexes,
  indexedStackTerms,
  STACK_INDEX,
  stackIndexName,
  stackWordIndexName,
} from '../../src/domain/search/vectors.js';
import { seedListing, TASKS } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * A stack named by many listings gets an HNSW index of its own (src/domain/search/vectors.ts), so
 * that a filter on it walks a graph of that stack only. Here the threshold is lowered to a few
 * listings; the search must answer exactly as it does without the index.
 */
let t: TestContext;
const defaults = { ...STACK_INDEX };

const STACKS = ['Python, FastAPI', 'Python, Django', 'Go', 'Rust', 'TypeScript, Node.js'];

beforeAll(async () => {
  t = await startTestApp();
  const { sql, embedder } = t.runtime.deps;
  for (const [i, stack] of STACKS.entries())
    for (const [j, task] of TASKS.entries())
      await seedListing(sql, embedder, {
        title: `${task} ${i}${j}`,
        description: `${task}, written for ${stack} projects; edition ${i}${j} with tests.`,
        techStack: stack,
      });
});
afterAll(async () => {
  Object.assign(STACK_INDEX, defaults);
  await t?.close();
});

async function search(query: Record<string, string>) {
  const res = await t.app.inject({ url: '/api/v1/search', query });
  expect(res.statusCode).toBe(200);
  return (res.json() as Array<{ id: string; similarity: number }>).map((r) => [r.id, r.similarity]);
}

describe('per-stack vector indexes', () => {
  it('are made for common stack terms only, and a filter on one answers as without it', async () => {
    const { sql, embedder } = t.runtime.deps;
    const queries: Array<Record<string, string>> = [
      { q: 'csv converter', tech_stack: 'Python' },
      { q: 'token bucket rate limiter', tech_stack: 'python' },
      { q: 'invoice generator', tech_stack: 'PYTHON', max_price: '100' },
      { q: 'web crawler', tech_stack: 'fastapi,python' },
      { q: 'login service', tech_stack: 'node.js' },
    ];
    const before = [];
    for (const q of queries) before.push(await search(q));

    // 12 listings name python, 6 each of the others; at most half the catalogue per index
    Object.assign(STACK_INDEX, { minListings: 10 });
    expect(await ensureStackIndexes(sql, embedder.dimensions)).toEqual(['python']);
    Object.assign(STACK_INDEX, { minListings: 6 });
    // "go" is also inside "Django": its index holds both (12 of 30), as its filter does
    const terms = await ensureStackIndexes(sql, embedder.dimensions);
    // "Node.js" is the word "nodejs" (a rewrite): its index is on the stack words, not the text
    expect([...terms].sort()).toEqual([
      'django',
      'fastapi',
      'go',
      'nodejs',
      'python',
      'rust',
      'typescript',
    ]);
    expect([...(await indexedStackTerms(sql, embedder.dimensions))].sort()).toEqual(
      [...terms].sort(),
    );
    const [idx] =
      await sql`select indexdef from pg_indexes where indexname = ${stackIndexName(embedder.dimensions, 'python')}`;
    expect(idx?.indexdef).toContain("'%python%'");
    const [words] =
      await sql`select indexdef from pg_indexes where indexname = ${stackWordIndexName(embedder.dimensions, 'nodejs')}`;
    expect(words?.indexdef).toContain("stack_words && '{nodejs}'::text[]");

    const after = [];
    for (const q of queries) after.push(await search(q));
    expect(after).toEqual(before);
  });

  it('a substring index an earlier build made for a rewritten word ("node.js") is dropped: nothing could use it', async () => {
    const { sql, embedder } = t.runtime.deps;
    const dims = embedder.dimensions;
    // as the earlier build made it: partial on the raw text, which no filter of the word tests
    await sql.unsafe(
      `create index if not exists ${stackIndexName(dims, 'node.js')} on items
         using hnsw ((embedding::vector(${dims})) vector_cosine_ops)
         where status = 'active' and embedding_dims = ${dims} and tech_stack ilike '%node.js%'`,
    );
    const legacy = () =>
      sql`select 1 from pg_indexes where indexname = ${stackIndexName(dims, 'node.js')}`;
    expect(await legacy()).toHaveLength(1);
    Object.assign(STACK_INDEX, { minListings: 6 });
    await ensureStackIndexes(sql, dims);
    // every write to items paid for it; the word's own index serves the filter
    expect(await legacy()).toHaveLength(0);
    expect(await indexedStackTerms(sql, dims)).toContain('nodejs');
  });

  it('a filter on a rewritten stack word ("C#", "Node.js") walks that word\'s own graph', async () => {
    const { sql, embedder } = t.runtime.deps;
    Object.assign(STACK_INDEX, { minListings: 6 });
    await ensureStackIndexes(sql, embedder.dimensions);
    const scans = async () => {
      await sql`select pg_stat_force_next_flush()`;
      await sql`select 1`;
      const [row] = await sql<{ scans: number }[]>`
        select coalesce(sum(idx_scan), 0)::int as scans from pg_stat_user_indexes
        where indexrelname = ${stackWordIndexName(embedder.dimensions, 'nodejs')}`;
      return row?.scans ?? 0;
    };
    const before = await scans();
    const found = await search({ q: 'login service', tech_stack: 'Node.js' });
    expect(found.length).toBeGreaterThan(0);
    expect(await scans()).toBeGreaterThan(before);
  });

  it("a words index built with another release's word test (the word's aliases changed) is replaced", async () => {
    const { sql, embedder } = t.runtime.deps;
    const dims = embedder.dimensions;
    const name = stackWordIndexName(dims, 'nodejs');
    // as a release whose names for the word were "nodejs" and "node" built it: no filter of
    // today's tests that set, so the planner could never use it
    await sql.unsafe(`drop index if exists ${name}`);
    await sql.unsafe(
      `create index ${name} on items using hnsw ((embedding::vector(${dims})) vector_cosine_ops)
         where status = 'active' and embedding_dims = ${dims} and stack_words && '{nodejs,node}'::text[]`,
    );
    Object.assign(STACK_INDEX, { minListings: 6 });
    expect(await ensureStackIndexes(sql, dims)).toContain('nodejs');
    const [idx] = await sql<{ indexdef: string }[]>`
      select indexdef from pg_indexes where indexname = ${name}`;
    expect(idx?.indexdef).toContain("stack_words && '{nodejs}'::text[]");
  });
});
