import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { backfillPreviews, type BackfillProgress } from '../../src/domain/scan/backfill.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * Listings that went active before issue 29 get their preview and signed scan report from the
 * one-off (`npm run previews`), from their stored archives; the demo catalogue gets both as it
 * loads.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const counts = async () =>
  (
    await t.runtime.deps.sql<{ previews: number; attestations: number }[]>`
      select (select count(*)::int from item_previews) as previews,
             (select count(*)::int from scan_attestations) as attestations`
  )[0]!;

describe('previews one-off', () => {
  it('fills what active listings lack, skips what today’s scan refuses, and resumes', async () => {
    const deps = t.runtime.deps;
    const good = await Promise.all(
      ['bf1', 'bf2', 'bf3'].map((s) => createSaleItem(deps, { bytes: zipOf(uniqueProject(s)) })),
    );
    // random bytes: not an archive the scan can read
    const unreadable = await createSaleItem(deps);
    const seen: BackfillProgress[] = [];
    const res = await backfillPreviews(deps, { batchSize: 2, onProgress: (p) => seen.push(p) });
    expect(res).toEqual({ done: 4, total: 4, previews: 3, attestations: 3, skipped: 1 });
    expect(seen[0]).toMatchObject({ done: 0, total: 4 });
    expect(seen.at(-1)).toEqual(res);
    for (const g of good) {
      const preview = await t.app.inject(`/api/v1/items/${g.itemId}/preview`);
      expect(preview.json()).toMatchObject({ files: 3, license: { spdx: 'none' } });
      const a = await t.app.inject(`/api/v1/items/${g.itemId}/attestation`);
      expect(a.json().typed_data.message.archiveSha256).toBe(`0x${g.sha256}`);
    }
    // the one the scan refuses stays active and gets neither
    expect((await t.app.inject(`/api/v1/items/${unreadable.itemId}`)).statusCode).toBe(200);
    expect((await t.app.inject(`/api/v1/items/${unreadable.itemId}/preview`)).json().error).toBe(
      'preview_not_available',
    );
    // a second run looks only at what still lacks (the unreadable one) and signs nothing twice
    const again = await backfillPreviews(deps);
    expect(again).toMatchObject({ total: 1, previews: 0, attestations: 0, skipped: 1 });
    expect(await counts()).toEqual({ previews: 3, attestations: 3 });
  });

  it('gives every demo listing its preview and signed report as the catalogue loads', async () => {
    const before = await counts();
    await loadDemoData(t.runtime.deps);
    const after = await counts();
    expect(after.previews - before.previews).toBe(DEMO_LISTINGS.length);
    expect(after.attestations - before.attestations).toBe(DEMO_LISTINGS.length);
    const res = await t.app.inject({ url: '/api/v1/search', query: { q: 'discord bot' } });
    expect(res.json()[0].preview).toMatchObject({
      languages: ['TypeScript'],
      license: 'NOASSERTION',
    });
  });
});
