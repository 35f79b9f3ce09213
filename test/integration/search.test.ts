import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { searchItems } from '../../src/domain/search/search.js';
import { seedListing, seedRatings, seedSeller } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  const { sql, embedder } = t.runtime.deps;
  for (const l of DEMO_LISTINGS) ids[l.title] = await seedListing(sql, embedder, l);
});
afterAll(() => t?.close());

async function search(query: Record<string, string>) {
  const res = await t.app.inject({ url: '/api/v1/search', query });
  return { status: res.statusCode, body: res.json() };
}
const titles = (body: Array<{ metadata: { title: string } }>) => body.map((r) => r.metadata.title);

describe('GET /api/v1/search ranking', () => {
  it('ranks the intended listing first for an exact keyword query', async () => {
    const { status, body } = await search({ q: 'redis token bucket rate limiter' });
    expect(status).toBe(200);
    expect(titles(body)[0]).toBe('Redis token-bucket rate limiter middleware');
  });

  it('ranks the intended listing first for a paraphrase sharing no title words', async () => {
    const { body } = await search({ q: 'throttle how many requests each API client may send' });
    expect(titles(body)[0]).toBe('Redis token-bucket rate limiter middleware');
  });

  it('finds a crawler from a paraphrase about scraping web pages', async () => {
    const { body } = await search({ q: 'scraper that harvests articles from websites' });
    expect(titles(body)[0]).toBe('Headless news crawler with robots.txt support');
  });

  it('splits code identifiers: camelCase query finds the login service', async () => {
    const { body } = await search({ q: 'refreshToken jwtLogin' });
    expect(titles(body)[0]).toBe('JWT login and refresh-token service');
  });

  it('answers a bare array of at most 20 entries with the public shape', async () => {
    const { body } = await search({ q: 'service api server' });
    expect(Array.isArray(body)).toBe(true);
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThanOrEqual(20);
    const [first] = body;
    expect(Object.keys(first).sort()).toEqual([
      'available_chains',
      'id',
      'metadata',
      'similarity',
      'status',
    ]);
    expect(first.status).toBe('active');
    expect(first.available_chains).toEqual(['base', 'polygon']);
    expect(typeof first.metadata.prices.USDC).toBe('number');
    expect(first.metadata.seller_username).toMatch(/^[a-z]+-[a-z]+-\d{3}$/);
    for (const r of body) {
      expect(r.similarity).toBeGreaterThanOrEqual(0);
      expect(r.similarity).toBeLessThanOrEqual(5);
      expect(Math.round(r.similarity * 10)).toBe(r.similarity * 10);
    }
    const sims = body.map((r: { similarity: number }) => r.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
  });

  it('returns at most 20 results however many listings match', async () => {
    const { sql, embedder } = t.runtime.deps;
    for (let n = 0; n < 24; n++)
      await seedListing(sql, embedder, {
        title: `Quokka habitat tracker ${n}`,
        description: `Quokka habitat tracker edition ${n}: maps quokka sightings on islands.`,
        techStack: 'Elm',
      });
    const { body } = await search({ q: 'quokka habitat tracker' });
    expect(body.length).toBe(20);
    expect(titles(body).every((x) => x.startsWith('Quokka habitat tracker'))).toBe(true);
  });

  it('puts a clear match well above listings sharing only generic words, and drops noise', async () => {
    const { body } = await search({ q: 'send email notifications' });
    expect(titles(body)[0]).toBe('Email newsletter sender');
    const unrelated = body.find((r: { metadata: { title: string } }) =>
      /Kanban|Sudoku|snake/.test(r.metadata.title),
    );
    if (unrelated) expect(body[0].similarity - unrelated.similarity).toBeGreaterThanOrEqual(1.5);
    const { body: none } = await search({ q: 'banana bread recipe with walnuts' });
    expect(none).toEqual([]);
  });

  it('ranks the right demo listing first for the everyday queries of the issue', async () => {
    const first = async (q: string) => titles((await search({ q })).body)[0];
    expect(await first('parse csv files in python')).toBe('CSV to JSON streaming converter CLI');
    expect(await first('jwt auth middleware for express')).toBe(
      'JWT login and refresh-token service',
    );
    expect(await first('send email notifications')).toBe('Email newsletter sender');
    const { body } = await search({ q: 'rust cli argument parsing' });
    expect(body[0].metadata.tech_stack).toMatch(/Rust/);
  });

  it('of near-identical listings, puts the one in the named stack first, product names included', async () => {
    const { sql, embedder } = t.runtime.deps;
    const task = {
      title: 'Wombat burrow census exporter',
      description: 'Exports wombat burrow census counts as weekly reports.',
    };
    for (const techStack of ['Go', 'Python', 'TypeScript, Node.js', 'JavaScript'])
      await seedListing(sql, embedder, { ...task, techStack });
    const stackOfFirst = async (q: string) => (await search({ q })).body[0].metadata.tech_stack;
    expect(await stackOfFirst('wombat burrow census exporter in go')).toBe('Go');
    expect(await stackOfFirst('python wombat burrow census')).toBe('Python');
    // "TypeScript" in a listing is typescript, not "type script"; "JavaScript" is not Java
    expect(await stackOfFirst('typescript wombat burrow census')).toBe('TypeScript, Node.js');
    expect(await stackOfFirst('javascript wombat burrow census')).toBe('JavaScript');
  });

  it('counts a framework as its language: a python query prefers the Flask listing', async () => {
    const { sql, embedder } = t.runtime.deps;
    const task = {
      title: 'Platypus sighting ledger',
      description: 'Keeps a ledger of platypus sightings with river, date and observer.',
    };
    // the stacks name only the framework, as sellers often write them
    for (const techStack of ['Flask, Redis', 'Express, Redis', 'Gin'])
      await seedListing(sql, embedder, { ...task, techStack });
    const stackOfFirst = async (q: string) => (await search({ q })).body[0].metadata.tech_stack;
    expect(await stackOfFirst('python platypus sighting ledger')).toBe('Flask, Redis');
    expect(await stackOfFirst('flask platypus sighting ledger')).toBe('Flask, Redis');
    expect(await stackOfFirst('platypus sighting ledger for node.js')).toBe('Express, Redis');
    expect(await stackOfFirst('expressjs platypus sighting ledger')).toBe('Express, Redis');
  });

  it('prefers the listing in the stack the query names', async () => {
    const { body } = await search({ q: 'rust cli argument parsing' });
    expect(body[0].metadata.tech_stack).toMatch(/Rust/);
    const { body: express } = await search({ q: 'jwt auth middleware for express' });
    expect(titles(express).slice(0, 3)).toContain('JWT login and refresh-token service');
  });
});

describe('GET /api/v1/search latency', () => {
  // On a real Postgres the search's disabled seqscan once pushed every estimate past
  // jit_above_cost, and each search spent 1.5-3.5 s compiling its plan with LLVM (a query that
  // runs in milliseconds). The best of a few runs stays far below that however loaded the machine.
  it('answers in milliseconds, not seconds of plan compilation', async () => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const { status } = await search({ q: `redis rate limiter ${i}` });
      expect(status).toBe(200);
      times.push(performance.now() - started);
    }
    expect(Math.min(...times)).toBeLessThan(400);
  });
});

describe('GET /api/v1/search filters', () => {
  it('filters by tech stack case-insensitively, every comma term required', async () => {
    const { body } = await search({ q: 'service', tech_stack: 'GO, postgresql' });
    expect(body.length).toBeGreaterThan(0);
    for (const r of body) {
      expect(r.metadata.tech_stack.toLowerCase()).toContain('go');
      expect(r.metadata.tech_stack.toLowerCase()).toContain('postgresql');
    }
    expect(titles(body)).toContain('JWT login and refresh-token service');
  });

  it('filters by price range, inclusive, and still returns the filtered matches', async () => {
    // a floor keeps unrelated listings out, so the query names what the cheap listing does
    const { body } = await search({ q: 'json converter', min_price: '0.5', max_price: '1' });
    expect(body.length).toBeGreaterThan(0);
    for (const r of body) {
      expect(r.metadata.prices.USDC).toBeGreaterThanOrEqual(0.5);
      expect(r.metadata.prices.USDC).toBeLessThanOrEqual(1);
    }
    expect(titles(body)).toContain('CSV to JSON streaming converter CLI'); // price 0.5
    expect(titles(body)).not.toContain('Recursive descent JSON parser'); // price 1.2
  });

  it('shows only active listings; one payable nowhere stays visible with empty available_chains (spec 2.1), except in Revision A', async () => {
    const { sql, embedder } = t.runtime.deps;
    const text = { description: 'quantum flux capacitor calibration toolkit', techStack: 'Zig' };
    await seedListing(sql, embedder, { ...text, title: 'Flux pending', status: 'pending_scan' });
    await seedListing(sql, embedder, { ...text, title: 'Flux rejected', status: 'rejected' });
    await seedListing(sql, embedder, { ...text, title: 'Flux deleted', status: 'deleted' });
    const optedOut = await seedSeller(sql);
    await sql`update agents set sales_chains = '{}' where id = ${optedOut.id}`;
    await seedListing(sql, embedder, { ...text, title: 'Flux unpayable', seller: optedOut });
    await seedListing(sql, embedder, { ...text, title: 'Flux active' });
    const { body } = await search({ q: 'quantum flux capacitor calibration' });
    const flux = (body as Array<{ metadata: { title: string }; available_chains: string[] }>)
      .filter((x) => x.metadata.title.startsWith('Flux'))
      .map((x) => [x.metadata.title, x.available_chains]);
    expect(flux.sort()).toEqual([
      ['Flux active', ['base', 'polygon']],
      ['Flux unpayable', []],
    ]);
    // Revision A limits search to listings payable on at least one chain
    const payable = await searchItems(
      sql,
      embedder,
      { q: 'quantum flux capacitor calibration' },
      { efSearch: 40, ratingThreshold: 5, payableOnly: true },
    );
    expect(payable.map((r) => r.metadata.title).filter((x) => x?.startsWith('Flux'))).toEqual([
      'Flux active',
    ]);
  });
});

describe('GET /api/v1/search ratings', () => {
  it('omits rating fields below 5 approved ratings and shows them at 5', async () => {
    const { sql, embedder } = t.runtime.deps;
    const few = await seedListing(sql, embedder, {
      title: 'Zebra few ratings',
      description: 'zebra striped widget',
      techStack: 'Elm',
    });
    const many = await seedListing(sql, embedder, {
      title: 'Zebra many ratings',
      description: 'zebra striped widget',
      techStack: 'Elm',
    });
    await seedRatings(sql, few, [9, 9, 9, 9]);
    await seedRatings(sql, few, [1, 1], 'pending'); // not approved: never counted
    await seedRatings(sql, many, [10, 9, 8, 7, 7]);
    const { body } = await search({ q: 'zebra striped widget' });
    const byId = Object.fromEntries(body.map((r: { id: string }) => [r.id, r]));
    expect(byId[few]).toBeDefined();
    expect(byId[few]).not.toHaveProperty('rating_avg');
    expect(byId[few]).not.toHaveProperty('rating_count');
    expect(byId[many].rating_avg).toBe(8.2);
    expect(byId[many].rating_count).toBe(5);
  });
});

describe('GET /api/v1/search validation', () => {
  it.each([
    [{}, 'missing_query'],
    [{ q: '   ' }, 'missing_query'],
    [{ q: 'x'.repeat(1001) }, 'query_too_long'],
    [{ q: 'ok', tech_stack: 't'.repeat(201) }, 'tech_stack_too_long'],
    [{ q: 'ok', min_price: 'cheap' }, 'invalid_price'],
    [{ q: 'ok', max_price: '-1' }, 'invalid_price'],
    [{ q: 'ok', min_price: '5', max_price: '1' }, 'invalid_price_range'],
  ])('%j → 400 %s', async (query, code) => {
    const { status, body } = await search(query as Record<string, string>);
    expect(status).toBe(400);
    expect(body.error).toBe(code);
  });

  it('accepts the longest allowed query', async () => {
    const { status } = await search({ q: 'a'.repeat(1000) });
    expect(status).toBe(200);
  });
});
