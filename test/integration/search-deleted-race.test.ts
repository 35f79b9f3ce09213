import { afterAll, beforeAll, expect, it } from 'vitest';
import { searchItems } from '../../src/domain/search/search.js';
import { seedListing } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

// A search is two statements (candidates, then the ranked results' public columns). The owner (or a moderator) deletes a listing after the search read its candidate row and before
// it read the ranked results' public projection: the deleted listing must not be answered.
it('a listing deleted between the candidates and the public projection is left out', async () => {
  const { sql, embedder } = t.runtime.deps;
  const id = await seedListing(sql, embedder, {
    title: 'Wombat burrow mapper',
    description: 'wombat burrow mapper for field surveys',
    techStack: 'Elm',
  });
  let deleted = false;
  const racing = new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const strings = args[0] as readonly string[] | undefined;
      const text = Array.isArray(strings) ? strings.join('') : '';
      if (!deleted && text.includes('any(') && text.includes('::uuid[]')) {
        deleted = true;
        return (async () => {
          await target`update items set status = 'deleted', status_reason = 'removed',
                       deleted_at = now() where id = ${id}`;
          return await (Reflect.apply(target as never, thisArg, args) as Promise<unknown>);
        })();
      }
      return Reflect.apply(target as never, thisArg, args);
    },
  });
  const results = await searchItems(
    racing as typeof sql,
    embedder,
    { q: 'wombat burrow mapper' },
    { efSearch: 40, ratingThreshold: 5 },
  );
  expect(deleted).toBe(true);
  expect(results.map((r) => [r.id, r.status])).not.toContainEqual([id, 'deleted']);
  expect(results.map((r) => r.id)).not.toContain(id);
});
