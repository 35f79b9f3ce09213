import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orTsquery } from '../../src/domain/search/search.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * The OR tsquery both candidate pools build from lexemes (search.ts, orTsquery): every lexeme is
 * quoted as tsquery input wants, so one with a quote or a backslash matches itself instead of
 * breaking the statement, and the title pool's weight restriction keeps to the title.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const LEXEMES = ["it's", 'a\\b', "o'x\\'", 'plain'];

/**
 * Whether the query over LEXEMES matches a document of `lexeme`: in weight class `docWeight` (from
 * to_tsvector, a word), or with no position (array_to_tsvector: any lexeme, meeting every class).
 */
async function matches(weight: '' | 'A', lexeme: string, docWeight?: 'A' | 'C'): Promise<boolean> {
  const { sql } = t.runtime.deps;
  const doc = docWeight
    ? sql`setweight(to_tsvector('simple', ${lexeme}), ${docWeight}::"char")`
    : sql`array_to_tsvector(array[${lexeme}]::text[])`;
  const [row] = await sql<Array<{ hit: boolean }>>`
    with q as (select ${orTsquery(sql, sql`l`, weight)} as tq from unnest(${LEXEMES}::text[]) l)
    select ${doc} @@ q.tq as hit from q`;
  return row!.hit;
}

describe('orTsquery', () => {
  it('matches each lexeme, quotes and backslashes included, and nothing else', async () => {
    for (const l of LEXEMES) expect(await matches('', l)).toBe(true);
    for (const l of LEXEMES) expect(await matches('A', l)).toBe(true);
    expect(await matches('', 'other')).toBe(false);
    expect(await matches('', 'it')).toBe(false);
  });

  it('keeps to the weight class it names', async () => {
    expect(await matches('A', 'plain', 'A')).toBe(true);
    expect(await matches('A', 'plain', 'C')).toBe(false);
    expect(await matches('', 'plain', 'C')).toBe(true);
  });

  it('is null over no lexeme', async () => {
    const { sql } = t.runtime.deps;
    const [row] = await sql<Array<{ tq: string | null }>>`
      select ${orTsquery(sql, sql`l`, '')}::text as tq from unnest(${[] as string[]}::text[]) l`;
    expect(row!.tq).toBeNull();
  });
});
