import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orTsquery } from '../../src/domain/search/search.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * The OR tsquery both candidate pools build from lexemes (search.ts, orTsquery): every lexeme is
 * quoted as tsquery input wants, so one with a quote or a backslash matches itself instead of
 * breaking the statement or matching another.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const LEXEMES = ["it's", 'a\\b', "o'x\\'", 'plain'];

/** Whether the query over `lexemes` matches a document holding `lexeme` alone. */
async function matches(lexeme: string, lexemes = LEXEMES): Promise<boolean | null> {
  const { sql } = t.runtime.deps;
  const [row] = await sql<Array<{ hit: boolean | null }>>`
    with q as (select ${orTsquery(sql, sql`l`)} as tq from unnest(${lexemes}::text[]) l)
    select array_to_tsvector(array[${lexeme}]::text[]) @@ q.tq as hit from q`;
  return row!.hit;
}

describe('orTsquery', () => {
  it('matches each lexeme, quotes and backslashes included, and nothing else', async () => {
    for (const l of LEXEMES) expect(await matches(l)).toBe(true);
    for (const l of ['other', 'it', 'a', 'b', "o'x"]) expect(await matches(l)).toBe(false);
  });

  it('is null over no lexeme', async () => {
    expect(await matches('plain', [])).toBeNull();
  });
});
