import { describe, expect, it } from 'vitest';
import { stem, tokenize, words } from '../../src/embeddings/builtin.js';
import { isStackWord } from '../../src/domain/search/stacks.js';
import { halfOf } from '../bench/relevance-half.js';
import { QUERY_KINDS } from '../bench/relevance-set.js';
import { PARAPHRASE_LISTINGS, PARAPHRASE_QUERIES } from '../bench/relevance-paraphrase-set.js';
import { FRESH_QUERIES } from '../bench/relevance-fresh-set.js';
import { FRESH2_QUERIES } from '../bench/relevance-fresh2-set.js';
import { FRESH3_QUERIES } from '../bench/relevance-fresh3-set.js';
import { FRESH4_QUERIES } from '../bench/relevance-fresh4-set.js';
import { FRESH5_QUERIES } from '../bench/relevance-fresh5-set.js';
import { FRESH6_QUERIES } from '../bench/relevance-fresh6-set.js';
import { FRESH7_QUERIES } from '../bench/relevance-fresh7-set.js';
import { FRESH8_QUERIES } from '../bench/relevance-fresh8-set.js';
import { TASK_QUERIES } from '../bench/relevance-tasks-set.js';
import { BUYER_QUERIES, buyerPhrasing } from '../bench/relevance-buyer-set.js';
import { benchSetsFor, RELEVANCE_SETS } from '../bench/relevance.js';
import { RELEVANCE_QUERIES, type RelevanceQuery } from '../bench/relevance-set.js';

/**
 * A text's content words by stem: stop words and stack names left out. A stack name goes whole,
 * before the tokenizer splits it at its capitals: "TypeScript" and "FastAPI" are names, not the
 * words "type", "script", "fast" and "api" (the ranking reads them whole too, stacks.ts).
 */
const contentStems = (text: string) =>
  new Set(
    words(text)
      .filter((w) => !isStackWord(w.toLowerCase()))
      .flatMap(tokenize)
      .filter((w) => !isStackWord(w))
      .map(stem),
  );

/** Queries that reuse a content word of the title or tech stack of a listing they want first. */
/**
 * A tuning set's queries are new (none in `others`, none twice), of a known kind, and judged on
 * listings of the paraphrase set's catalogue.
 */
function expectNewJudgedQueries(queries: RelevanceQuery[], others: RelevanceQuery[]): void {
  const byKey = new Set(PARAPHRASE_LISTINGS.map((l) => l.key));
  const seen = new Set(others.map((q) => q.q));
  expect(new Set(queries.map((q) => q.q)).size).toBe(queries.length);
  for (const q of queries) {
    expect(seen.has(q.q), q.q).toBe(false);
    expect(QUERY_KINDS).toContain(q.kind);
    expect(q.best.length).toBeGreaterThan(0);
    for (const k of [...q.best, ...(q.ok ?? [])]) expect(byKey.has(k), `${q.q}: ${k}`).toBe(true);
  }
}

function reusedWords(queries: RelevanceQuery[]): string[] {
  const byKey = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l]));
  const reused: string[] = [];
  for (const q of queries) {
    const words = contentStems(q.q);
    for (const k of q.best) {
      const l = byKey.get(k)!;
      const shared = [...contentStems(`${l.title} ${l.techStack}`)].filter((w) => words.has(w));
      if (shared.length) reused.push(`${q.q} ↔ ${k}: ${shared.join(', ')}`);
    }
  }
  return reused;
}

/**
 * A blind set of stop 55 (over the paraphrase set's catalogue): at least 120 queries, none of
 * `others`, each family at its floor, and every listing of the catalogue wanted first somewhere.
 */
function expectBlindSet(queries: RelevanceQuery[], others: RelevanceQuery[]): void {
  expect(queries.length).toBeGreaterThanOrEqual(120);
  expectNewJudgedQueries(queries, others);
  const minimum = { keyword: 15, paraphrase: 60, stack: 15, long: 15 };
  for (const kind of QUERY_KINDS)
    expect(queries.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(
      minimum[kind],
    );
  expect(new Set(queries.flatMap((q) => q.best)).size).toBe(PARAPHRASE_LISTINGS.length);
}

/** The mean share of a query's content words that its wanted listing's description holds. */
function descriptionShare(queries: RelevanceQuery[]): number {
  const byKey = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l]));
  let share = 0;
  for (const q of queries) {
    const words = contentStems(q.q);
    const description = contentStems(byKey.get(q.best[0]!)!.description);
    share += [...words].filter((w) => description.has(w)).length / Math.max(1, words.size);
  }
  return share / queries.length;
}

describe('the paraphrase relevance set (issue 30)', () => {
  const byKey = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l]));

  it('is large enough, with unique keys and queries, and judgments that name real listings', () => {
    expect(PARAPHRASE_LISTINGS.length).toBeGreaterThanOrEqual(80);
    expect(PARAPHRASE_QUERIES.length).toBeGreaterThanOrEqual(120);
    expect(byKey.size).toBe(PARAPHRASE_LISTINGS.length);
    expect(new Set(PARAPHRASE_QUERIES.map((q) => q.q)).size).toBe(PARAPHRASE_QUERIES.length);
    for (const q of PARAPHRASE_QUERIES) {
      expect(QUERY_KINDS).toContain(q.kind);
      expect(q.best.length).toBeGreaterThan(0);
      for (const k of [...q.best, ...(q.ok ?? [])]) expect(byKey.has(k), `${q.q}: ${k}`).toBe(true);
    }
  });

  it('has close distractors: several rate limiters, scrapers and sign-in services in different stacks', () => {
    const stacksOf = (keys: string[]) =>
      new Set(keys.map((k) => byKey.get(k)!.techStack.split(',')[0]));
    const keys = [...byKey.keys()];
    for (const prefix of ['rl-', 'scrape-', 'auth-']) {
      const group = keys.filter((k) => k.startsWith(prefix));
      expect(group.length, prefix).toBeGreaterThanOrEqual(3);
      expect(stacksOf(group).size, prefix).toBeGreaterThanOrEqual(3);
    }
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(PARAPHRASE_QUERIES)).toEqual([]);
  });

  it('reads a stack name in a title or tech stack whole, not as the words of its parts', () => {
    // "FastAPI" and "TypeScript" name stacks; "fast", "api", "type" and "script" are free words
    const q = { q: 'a fast api to type a script', kind: 'paraphrase' as const };
    expect(reusedWords([{ ...q, best: ['rl-fastapi'] }])).toEqual([]);
    expect(reusedWords([{ ...q, best: ['env-config-ts'] }])).toEqual([]);
    expect(contentStems('Python, FastAPI, TypeScript, PostgreSQL, SQLite, PyTorch')).toEqual(
      new Set(),
    );
    // a word the title says is still reused ("typed" in "Typed environment variable loader")
    expect(
      reusedWords([{ q: 'a typed loader', kind: 'paraphrase', best: ['env-config-ts'] }]),
    ).toEqual(['a typed loader ↔ env-config-ts: typ, load']);
  });

  it('splits into a tuning and a held-out half by a fixed hash, each with every family', () => {
    for (const kind of QUERY_KINDS) {
      const qs = PARAPHRASE_QUERIES.filter((q) => q.kind === kind);
      const held = qs.filter((q) => halfOf(q) === 'held-out').length;
      expect(held, kind).toBeGreaterThan(0);
      expect(qs.length - held, kind).toBeGreaterThan(0);
    }
    // the split is the hash's, not the order of the file: fixed for a given query text
    expect(halfOf({ q: 'stop clients from hammering my node api' })).toBe('held-out');
  });
});

describe('the fresh relevance set (issue 30, written blind, never tuned on)', () => {
  const byKey = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l]));

  it('has at least 100 new queries in every family, judged on real listings of the catalogue', () => {
    expect(FRESH_QUERIES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(FRESH_QUERIES.map((q) => q.q)).size).toBe(FRESH_QUERIES.length);
    const older = new Set([...PARAPHRASE_QUERIES, ...RELEVANCE_QUERIES].map((q) => q.q));
    expect(FRESH_QUERIES.filter((q) => older.has(q.q)).map((q) => q.q)).toEqual([]);
    const minimum = { keyword: 15, paraphrase: 55, stack: 15, long: 15 };
    for (const kind of QUERY_KINDS)
      expect(FRESH_QUERIES.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(
        minimum[kind],
      );
    for (const q of FRESH_QUERIES) {
      expect(QUERY_KINDS).toContain(q.kind);
      expect(q.best.length).toBeGreaterThan(0);
      for (const k of [...q.best, ...(q.ok ?? [])]) expect(byKey.has(k), `${q.q}: ${k}`).toBe(true);
    }
  });

  it('wants most of the catalogue first somewhere, the close distractors included', () => {
    const wanted = new Set(FRESH_QUERIES.flatMap((q) => q.best));
    expect(wanted.size / byKey.size).toBeGreaterThanOrEqual(0.9);
    for (const prefix of ['rl-', 'scrape-', 'auth-'])
      for (const k of [...byKey.keys()].filter((key) => key.startsWith(prefix)))
        expect(wanted.has(k), k).toBe(true);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(FRESH_QUERIES)).toEqual([]);
  });

  it('is read only by the relevance bench, all held out, and hidden while tuning', () => {
    // the tuning tool and relevance-explain read RELEVANCE_SETS: the fresh set is not among them
    expect(RELEVANCE_SETS.some((set) => set.queries === FRESH_QUERIES)).toBe(false);
    const all = benchSetsFor({});
    expect(all.map((set) => set.name)).toEqual([
      'issue11',
      'paraphrase',
      'fresh2',
      'tasks',
      'buyer',
      'fresh',
      'fresh3',
      'fresh4',
      'fresh5',
      'fresh6',
      'fresh7',
      'fresh8',
    ]);
    expect(all.map((set) => set.heldOutOnly)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(all[5]!.label).toBe('fresh set (never tuned on)');
    expect(all[5]!.queries).toBe(FRESH_QUERIES);
    expect(all[5]!.listings).toBe(PARAPHRASE_LISTINGS);
    expect(benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).map((set) => set.name)).toEqual([
      'issue11',
      'paraphrase',
      'fresh2',
      'tasks',
      'buyer',
    ]);
    expect(benchSetsFor({ BENCH_RELEVANCE_SETS: 'fresh' }).map((set) => set.name)).toEqual([
      'fresh',
    ]);
  });
});

describe("stop 55's second fresh set (written blind, split into halves)", () => {
  it('has at least 120 new queries in every family, each listing wanted, judged on real listings', () => {
    expectBlindSet(FRESH2_QUERIES, [
      ...PARAPHRASE_QUERIES,
      ...FRESH_QUERIES,
      ...RELEVANCE_QUERIES,
      ...TASK_QUERIES,
      ...BUYER_QUERIES,
    ]);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(FRESH2_QUERIES)).toEqual([]);
  });

  it('splits into a tuning and a held-out half with every family in each, read as a split set', () => {
    for (const kind of QUERY_KINDS) {
      const qs = FRESH2_QUERIES.filter((q) => q.kind === kind);
      const held = qs.filter((q) => halfOf(q) === 'held-out').length;
      expect(held, kind).toBeGreaterThan(0);
      expect(qs.length - held, kind).toBeGreaterThan(0);
    }
    expect(RELEVANCE_SETS.find((set) => set.name === 'fresh2')?.queries).toBe(FRESH2_QUERIES);
  });
});

describe("stop 55's third fresh set (written blind in the buyer's words; tuning data since stop 56)", () => {
  it('has at least 120 new queries in every family, judged on real listings', () => {
    expectBlindSet(FRESH3_QUERIES, [
      ...PARAPHRASE_QUERIES,
      ...FRESH_QUERIES,
      ...FRESH2_QUERIES,
      ...RELEVANCE_QUERIES,
      ...TASK_QUERIES,
      ...BUYER_QUERIES,
    ]);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(FRESH3_QUERIES)).toEqual([]);
  });

  it('is in the buyer’s words: at most 30 % of a query’s words are in the wanted description', () => {
    expect(descriptionShare(FRESH3_QUERIES)).toBeLessThanOrEqual(0.3);
  });

  it('is read only by the relevance bench, all held out, and hidden while tuning', () => {
    expect(RELEVANCE_SETS.some((set) => set.queries === FRESH3_QUERIES)).toBe(false);
    const set = benchSetsFor({}).find((s) => s.name === 'fresh3');
    expect(set?.heldOutOnly).toBe(true);
    expect(set?.label).toBe('third fresh set (tuning data since stop 56)');
    expect(benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).some((s) => s.name === 'fresh3')).toBe(
      false,
    );
  });
});

describe("stop 55's fourth fresh set (written blind in the buyer's words, held out)", () => {
  it('has at least 120 new queries in every family, judged on real listings', () => {
    expectBlindSet(FRESH4_QUERIES, [
      ...PARAPHRASE_QUERIES,
      ...FRESH_QUERIES,
      ...FRESH2_QUERIES,
      ...FRESH3_QUERIES,
      ...RELEVANCE_QUERIES,
      ...TASK_QUERIES,
      ...BUYER_QUERIES,
    ]);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(FRESH4_QUERIES)).toEqual([]);
  });

  it('is in the buyer’s words: at most 30 % of a query’s words are in the wanted description', () => {
    expect(descriptionShare(FRESH4_QUERIES)).toBeLessThanOrEqual(0.3);
  });

  it('is held out: read by a default run, never while tuning', () => {
    expect(RELEVANCE_SETS.some((set) => set.queries === FRESH4_QUERIES)).toBe(false);
    expect(benchSetsFor({}).some((s) => s.name === 'fresh4')).toBe(true);
    expect(benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).some((s) => s.name === 'fresh4')).toBe(
      false,
    );
  });
});

/**
 * The blind sets written since stop 58, in order: each new against every set before it (and the
 * tuning-only ones), with its own floors, no title or stack word reused, at most 28 % of a query's
 * words in the wanted description, and, since its one sealed reading printed its misses, tuning
 * data: read whole by a default run, named by a tuning engineer, never read by a tuning run.
 */
const LATER_BLIND_SETS = [
  {
    title: "stop 58's fifth fresh set (written blind in the buyer's words, tuning data since)",
    name: 'fresh5',
    queries: FRESH5_QUERIES,
    label: 'fifth fresh set (tuning data since stop 58)',
    floors: { all: 140, keyword: 18, paraphrase: 75, stack: 18, long: 18 },
  },
  {
    title:
      "stop 58's sixth fresh set (written blind in the buyer's words, tuning data since stop 59)",
    name: 'fresh6',
    queries: FRESH6_QUERIES,
    label: 'sixth fresh set (tuning data since stop 59)',
    floors: { all: 160, keyword: 18, paraphrase: 80, stack: 18, long: 18 },
  },
  {
    title:
      "stop 59's seventh fresh set (written blind in the buyer's words, read once, tuning data since)",
    name: 'fresh7',
    queries: FRESH7_QUERIES,
    label: 'seventh fresh set (read once at stop 59, tuning data since)',
    floors: { all: 160, keyword: 18, paraphrase: 80, stack: 18, long: 18 },
  },
  {
    title:
      "stop 59's eighth fresh set (written blind in the buyer's words, read once, tuning data since)",
    name: 'fresh8',
    queries: FRESH8_QUERIES,
    label: 'eighth fresh set (read once at stop 59, tuning data since)',
    floors: { all: 160, keyword: 18, paraphrase: 80, stack: 18, long: 18 },
  },
];

LATER_BLIND_SETS.forEach((blind, i) =>
  describe(blind.title, () => {
    it(`has at least ${blind.floors.all} new queries in every family, judged on real listings`, () => {
      expectBlindSet(blind.queries, [
        ...PARAPHRASE_QUERIES,
        ...FRESH_QUERIES,
        ...FRESH2_QUERIES,
        ...FRESH3_QUERIES,
        ...FRESH4_QUERIES,
        ...LATER_BLIND_SETS.slice(0, i).flatMap((earlier) => earlier.queries),
        ...RELEVANCE_QUERIES,
        ...TASK_QUERIES,
        ...BUYER_QUERIES,
      ]);
      // this set's own floors, above the blind sets' common ones
      expect(blind.queries.length).toBeGreaterThanOrEqual(blind.floors.all);
      for (const kind of QUERY_KINDS)
        expect(blind.queries.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(
          blind.floors[kind],
        );
    });

    it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
      expect(reusedWords(blind.queries)).toEqual([]);
    });

    it('is in the buyer’s words: at most 28 % of a query’s words are in the wanted description', () => {
      expect(descriptionShare(blind.queries)).toBeLessThanOrEqual(0.28);
    });

    it('is read whole by a default run and named by a tuning engineer, never by a tuning run', () => {
      expect(RELEVANCE_SETS.some((set) => set.queries === blind.queries)).toBe(false);
      const set = benchSetsFor({}).find((s) => s.name === blind.name);
      expect(set?.heldOutOnly).toBe(true);
      expect(set?.queries).toBe(blind.queries);
      expect(set?.label).toBe(blind.label);
      expect(
        benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).some((s) => s.name === blind.name),
      ).toBe(false);
      expect(
        benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning', BENCH_RELEVANCE_SETS: blind.name }).map(
          (s) => s.name,
        ),
      ).toEqual([]);
    });
  }),
);

describe("stop 43's tasks set (tuning only, over the paraphrase set's catalogue)", () => {
  it('has at least 60 new queries, judged on real listings of the catalogue', () => {
    expect(TASK_QUERIES.length).toBeGreaterThanOrEqual(60);
    expectNewJudgedQueries(TASK_QUERIES, [
      ...PARAPHRASE_QUERIES,
      ...FRESH_QUERIES,
      ...RELEVANCE_QUERIES,
    ]);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(TASK_QUERIES)).toEqual([]);
  });

  it('is read with the tuning halves, all of it as tuning', () => {
    const set = benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).find((s) => s.name === 'tasks');
    expect(set?.tuningAll).toBe(true);
    expect(set?.queries).toBe(TASK_QUERIES);
  });
});

describe("stop 44's buyer set (tuning only, two phrasings per listing)", () => {
  it('has at least 60 new queries, two or more per wanted listing, judged on real listings', () => {
    expect(BUYER_QUERIES.length).toBeGreaterThanOrEqual(60);
    expectNewJudgedQueries(BUYER_QUERIES, [
      ...PARAPHRASE_QUERIES,
      ...FRESH_QUERIES,
      ...RELEVANCE_QUERIES,
      ...TASK_QUERIES,
    ]);
    const perListing = new Map<string, number>();
    for (const q of BUYER_QUERIES)
      perListing.set(q.best[0]!, (perListing.get(q.best[0]!) ?? 0) + 1);
    expect([...perListing.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(30);
  });

  it('never reuses a content word of the wanted listing’s title or tech stack in its query', () => {
    expect(reusedWords(BUYER_QUERIES)).toEqual([]);
  });

  it('tells each listing’s first phrasing from its second, by file order', () => {
    const first = BUYER_QUERIES.filter((q) => buyerPhrasing(q) === 'first');
    expect(new Set(first.map((q) => q.best[0])).size).toBe(first.length);
    for (const q of BUYER_QUERIES.filter((x) => buyerPhrasing(x) === 'second'))
      expect(
        first.some(
          (f) => f.best[0] === q.best[0] && BUYER_QUERIES.indexOf(f) < BUYER_QUERIES.indexOf(q),
        ),
      ).toBe(true);
    expect(() => buyerPhrasing({ q: 'not in the set' })).toThrow(/not a buyer set query/);
  });

  it('is read with the tuning halves, all of it as tuning', () => {
    const set = benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).find((s) => s.name === 'buyer');
    expect(set?.tuningAll).toBe(true);
    expect(set?.queries).toBe(BUYER_QUERIES);
  });
});
