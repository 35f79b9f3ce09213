import { describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../src/embeddings/builtin.js';
import { isStackWord } from '../../src/domain/search/stacks.js';
import { halfOf } from '../bench/relevance-half.js';
import { QUERY_KINDS } from '../bench/relevance-set.js';
import { PARAPHRASE_LISTINGS, PARAPHRASE_QUERIES } from '../bench/relevance-paraphrase-set.js';

/** A text's content words by stem: stop words and stack names left out. */
const contentStems = (text: string) =>
  new Set(
    tokenize(text)
      .filter((w) => !isStackWord(w))
      .map(stem),
  );

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
    const reused: string[] = [];
    for (const q of PARAPHRASE_QUERIES) {
      const words = contentStems(q.q);
      for (const k of q.best) {
        const l = byKey.get(k)!;
        const shared = [...contentStems(`${l.title} ${l.techStack}`)].filter((w) => words.has(w));
        if (shared.length) reused.push(`${q.q} ↔ ${k}: ${shared.join(', ')}`);
      }
    }
    expect(reused).toEqual([]);
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
