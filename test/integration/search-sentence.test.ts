import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reindexAll } from '../../src/domain/search/index-item.js';
import { BuiltinEmbedder, BUILTIN_DIMENSIONS } from '../../src/embeddings/builtin.js';
import { SENTENCE_DIMENSIONS, SentenceEmbedder } from '../../src/embeddings/sentence.js';
import { PARAPHRASE_LISTINGS } from '../bench/relevance-paraphrase-set.js';
import { seedListing, seedSeller } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * Issue 30, third stop: the built-in embedder's sentence option (EMBEDDINGS_BUILTIN=sentence) on
 * the paraphrase set's catalogue (91 listings with close distractors). The queries are ones the
 * word-level ranking puts below another listing: each names a task by what it does for the buyer.
 */
let t: TestContext;
const titleOf = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l.title]));

beforeAll(async () => {
  t = await startTestApp({ EMBEDDINGS_BUILTIN: 'sentence' });
  const { sql, embedder } = t.runtime.deps;
  const seller = await seedSeller(sql);
  for (const l of PARAPHRASE_LISTINGS) await seedListing(sql, embedder, { ...l, seller });
}, 120_000);
afterAll(() => t?.close());

type Hit = { similarity: number; metadata: { title: string } };
async function first(q: string): Promise<string | undefined> {
  const res = await t.app.inject({ url: '/api/v1/search', query: { q } });
  expect(res.statusCode).toBe(200);
  return (res.json() as Hit[])[0]?.metadata.title;
}

describe('search with the sentence encoder (issue 30)', () => {
  it('ranks first the listing a buyer describes by its effect', async () => {
    expect(t.runtime.deps.embedder).toBeInstanceOf(SentenceEmbedder);
    expect(await first('a square barcode people scan with their phone to join the wifi')).toBe(
      titleOf.get('qr-py'),
    );
    expect(await first('crash at boot if a required setting is missing')).toBe(
      titleOf.get('env-config-ts'),
    );
    expect(await first('keep my work and personal appointments in step')).toBe(
      titleOf.get('calendar-sync-py'),
    );
    expect(await first('kick out people posting junk in my gaming community server')).toBe(
      titleOf.get('discord-mod-ts'),
    );
  });

  it('reindex moves listings between the word and the sentence vectors, dimension included', async () => {
    const { sql, embedder } = t.runtime.deps;
    const n = PARAPHRASE_LISTINGS.length;
    // as if the catalogue had been indexed with the default (words) before the option was set
    expect((await reindexAll(sql, new BuiltinEmbedder())).done).toBe(n);
    expect((await reindexAll(sql, embedder)).done).toBe(n);
    const rows = await sql<{ model: string; dims: number; listings: number }[]>`
      select embedding_model as model, embedding_dims as dims, count(*)::int as listings
      from items group by 1, 2`;
    expect(rows).toEqual([
      { model: embedder.model, dims: BUILTIN_DIMENSIONS + SENTENCE_DIMENSIONS, listings: n },
    ]);
    // a second run finds nothing stale
    expect((await reindexAll(sql, embedder)).done).toBe(0);
    expect(await first('crash at boot if a required setting is missing')).toBe(
      titleOf.get('env-config-ts'),
    );
  }, 120_000);
});
