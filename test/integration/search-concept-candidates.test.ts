import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedListing } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * Issue 30, the candidate stage: the database hands the final ranking 60 candidates pre-ranked by
 * shared words and vector likeness. A listing whose title names the buyer's task in other words
 * ("moderation" for "kick out ... junk") shares neither with a paraphrase, so, with enough listings
 * sharing a word of the query, it never reached the ranking that reads task concepts. Listings
 * whose title names a task concept of the query now join the candidates.
 */
let t: TestContext;

const WANTED = 'Forum moderation bot';
const TOPICS = ['calendar', 'photo wall', 'newsletter', 'map', 'leaderboard', 'wiki', 'poll'];

beforeAll(async () => {
  t = await startTestApp();
  const { sql, embedder } = t.runtime.deps;
  // more listings sharing a word of the query than the database hands on
  for (let n = 0; n < 90; n++) {
    const topic = TOPICS[n % TOPICS.length]!;
    await seedListing(sql, embedder, {
      title: `Community ${topic} ${n}`,
      techStack: 'TypeScript, React',
      description: `A ${topic} widget for your community website, variant ${n}, themed and responsive.`,
    });
  }
  await seedListing(sql, embedder, {
    title: WANTED,
    techStack: 'Python',
    description: 'Bans trolls and hides offensive messages automatically, with an audit trail.',
  });
}, 120_000);
afterAll(() => t?.close());

type Hit = { similarity: number; metadata: { title: string } };
async function search(q: string): Promise<Hit[]> {
  const res = await t.app.inject({ url: '/api/v1/search', query: { q } });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('candidates by task concept (issue 30)', () => {
  it('reaches a listing whose title names the task the query describes in other words', async () => {
    const hits = await search('kick out members who post junk in my community');
    expect(hits[0]?.metadata.title).toBe(WANTED);
  });

  it('leaves a query that names no task concept to the shared words', async () => {
    const hits = await search('community leaderboard');
    expect(hits[0]?.metadata.title).toMatch(/^Community leaderboard/);
    expect(hits.map((h) => h.metadata.title)).not.toContain(WANTED);
  });
});
