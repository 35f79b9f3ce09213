import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedListing } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

async function df(lexeme: string): Promise<number> {
  const [row] = await t.runtime.deps.sql<{ df: number }[]>`
    select df from search_terms where lexeme = ${lexeme}`;
  return row?.df ?? 0;
}
async function docs(): Promise<number> {
  const [row] = await t.runtime.deps.sql<{ docs: number }[]>`select docs from search_corpus`;
  return Number(row!.docs);
}

describe('BM25 statistics', () => {
  it('follow listings as they activate, change and leave', async () => {
    const { sql, embedder } = t.runtime.deps;
    const before = await docs();
    const pending = await seedListing(sql, embedder, {
      title: 'Xylophone tuner',
      description: 'Tunes xylophone bars.',
      techStack: 'Zig',
      status: 'pending_scan',
    });
    expect(await df('xylophon')).toBe(0); // not active: not counted
    await sql`update items set status = 'active' where id = ${pending}`;
    expect(await df('xylophon')).toBe(1);
    expect(await docs()).toBe(before + 1);

    const other = await seedListing(sql, embedder, {
      title: 'Xylophone recorder',
      description: 'Records xylophone practice.',
      techStack: 'Zig',
    });
    expect(await df('xylophon')).toBe(2);

    await sql`update items set title = 'Marimba recorder', description = 'Records marimba practice.' where id = ${other}`;
    expect(await df('xylophon')).toBe(1);
    expect(await df('marimba')).toBe(1);

    await sql`update items set status = 'deleted' where id = ${pending}`;
    expect(await df('xylophon')).toBe(0);
    expect(await docs()).toBe(before + 1);
    // an update that changes neither status nor text leaves the statistics alone
    await sql`update items set price_micro = price_micro + 1 where id = ${other}`;
    expect(await df('marimba')).toBe(1);
  });

  it('weighs a rare word above a common one (inverse document frequency)', async () => {
    const { sql, embedder } = t.runtime.deps;
    for (let n = 0; n < 8; n++)
      await seedListing(sql, embedder, {
        title: `Gizmo toolkit ${n}`,
        description: `A gizmo toolkit, release ${n}, with helpers for gizmo wiring.`,
        techStack: 'Elm',
      });
    await seedListing(sql, embedder, {
      title: 'Quasar toolkit',
      description: 'Quasar brightness catalogue reader.',
      techStack: 'Elm',
    });
    const res = await t.app.inject({ url: '/api/v1/search', query: { q: 'gizmo quasar' } });
    // both words appear once in a title; "quasar" is in one listing, "gizmo" in eight
    expect(res.json()[0].metadata.title).toBe('Quasar toolkit');
  });
});
