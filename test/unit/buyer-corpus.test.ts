import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BUYER_OPTIONS,
  buildBuyerTable,
  buyerQueries,
  contextOnly,
  importLabelled,
  learnBuyer,
} from '../../scripts/build-buyer-corpus.js';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import {
  CORPUS_CREDIT,
  listingWords,
  prepareQuery,
  softMatchWords,
} from '../../src/domain/search/soft-match.js';
import { taskLexicon } from '../../src/domain/search/task-lexicon.js';
import {
  BUYER_CORPUS_FILE,
  buyerCorpus,
  parseSoftwareCorpus,
} from '../../src/domain/search/software-corpus.js';

describe('the buyer corpus (buyer queries labelled with the concept each means)', () => {
  it('is committed cleaned: concept<TAB>query lines of lexicon concepts, sorted, no repeats', () => {
    const text = readFileSync(
      new URL('../../scripts/corpus/buyer-queries.txt', import.meta.url),
      'utf8',
    );
    expect(text).toMatch(/^# .*blind/m);
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(2000);
    expect([...lines].sort()).toEqual(lines);
    expect(new Set(lines).size).toBe(lines.length);
    const known = taskLexicon().concepts;
    for (const l of lines) {
      const [concept, query, ...rest] = l.split('\t');
      expect(rest, l).toEqual([]);
      expect(known.has(concept!), l).toBe(true);
      expect(query!.trim(), l).toBe(query);
      expect(query!.length, l).toBeGreaterThan(0);
    }
  });

  it('imports a new round with an earlier import: its header skipped and carried, repeats across files dropped', () => {
    const known = new Set(['rate_limit', 'csv']);
    const earlier = importLabelled(
      [
        { name: 'queries-1.txt', text: 'rate_limit\tstop the flood\ncsv\topen my sheet\n' },
        { name: 'queries-b1.txt', text: 'csv\topen my sheet\nnope\tunknown concept\n' },
      ],
      known,
    ).text;
    expect(earlier).toMatch(/^# Round 2 /m);
    const { text, summary } = importLabelled(
      [
        { name: 'buyer-queries.txt', text: earlier },
        {
          name: 'queries-c1.txt',
          text: 'csv\t  open   my sheet \nrate_limit\tone user eats my whole server\nbroken line\n',
        },
      ],
      known,
    );
    // the earlier file's header lines are not queries (they were read as malformed lines)
    expect(summary).toBe('5 lines, 1 malformed, 0 unknown concept, 1 repeated, 3 kept, 2 concepts');
    expect(text).toMatch(/^# Round 2 /m);
    expect(text).toMatch(/^# Round 3 \(queries-c1\.\.c3/m);
    expect(text).toContain(
      '# Lines read: buyer-queries.txt 2 (its import: queries-1.txt 2, queries-b1.txt 2; 4 read, 0 malformed, 1 with a concept not in the lexicon, 1 repeated: 2 kept), queries-c1.txt 3.',
    );
    expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))).toEqual([
      'csv\topen my sheet',
      'rate_limit\tone user eats my whole server',
      'rate_limit\tstop the flood',
    ]);
  });

  it('reads, per concept, the share of its queries that name only another concept (their context)', () => {
    const rows = contextOnly([
      { concept: 'passwordless', query: 'a magic link to sign in' },
      { concept: 'passwordless', query: 'get in from a link in the mail' },
      { concept: 'passwordless', query: 'nothing to remember' },
      { concept: 'sms', query: 'text message alerts' },
    ]);
    expect(rows).toEqual([
      { concept: 'passwordless', queries: 3, share: 1 / 3, contexts: [['email', 1]] },
      { concept: 'sms', queries: 1, share: 0, contexts: [] },
    ]);
  });

  it('rebuilds the committed table byte for byte', () => {
    expect(buildBuyerTable(buyerQueries())).toBe(readFileSync(BUYER_CORPUS_FILE, 'utf8'));
  });

  it('loads in the software corpus format, every concept one of the lexicon', () => {
    const { concepts } = buyerCorpus();
    expect(concepts.size).toBeGreaterThan(200);
    const known = taskLexicon().concepts;
    for (const [word, list] of concepts) {
      expect(list.length, word).toBeLessThanOrEqual(BUYER_OPTIONS.top);
      for (const [c, p] of list) {
        expect(known.has(c.replace(/^t:/, '')), `${word} ${c}`).toBe(true);
        expect(p).toBeGreaterThanOrEqual(BUYER_OPTIONS.minP);
        expect(p).toBeLessThanOrEqual(1);
      }
    }
    expect(() => parseSoftwareCorpus('c puzzle sudoku\n')).toThrow(/line 1/);
  });

  it('learns P(concept | word) shrunk to the base rate, leaving out generic words and the words naming the concept', () => {
    const data = [
      { concept: 'rate_limit', query: 'my api gets hammered by greedy clients' },
      { concept: 'rate_limit', query: 'greedy clients use up every request' },
      { concept: 'rate_limit', query: 'throttle greedy users' },
      { concept: 'csv', query: 'open the spreadsheet export from greedy accounting' },
    ];
    // spread: a word seen with more concepts than maxSpread is generic
    for (let i = 0; i < 4; i++) data.push({ concept: `c${i}`, query: `something odd ${i}` });
    const table = learnBuyer(data, { ...BUYER_OPTIONS, prior: 2, minP: 0.2, maxSpread: 3 });
    const greedy = table.get('greedy')!;
    expect(greedy[0]![0]).toBe('rate_limit');
    // 3 of its 4 queries, shrunk by 2 pseudo-queries at the base rate (3 of the 8 queries)
    expect(greedy[0]![1]).toBeCloseTo((3 + 2 * (3 / 8)) / (4 + 2), 5);
    expect(table.has('odd')).toBe(false);
    // "throttle" names rate limiting itself (the lexicon): it teaches nothing new
    expect(table.get('throttle')?.some(([c]) => c === 'rate_limit') ?? false).toBe(false);
  });

  it('keeps a common word that leans to one concept, however many concepts it is seen with', () => {
    // a count cap on the concepts a word is seen with does not grow with the corpus: with both
    // rounds, "build" (CI) and "per" (rate limiting) crossed it and were left out
    const data = Array.from({ length: 60 }, (_, i) => ({
      concept: `c${i}`,
      query: `build something odd ${i}`,
    }));
    for (let i = 0; i < 12; i++) data.push({ concept: 'ci', query: `build it all on push ${i}` });
    expect(learnBuyer(data).get('build')?.[0]?.[0]).toBe('ci');
    const shipped = buyerCorpus().concepts;
    expect(shipped.get('build')?.map(([c]) => c)).toContain('t:ci');
    expect(shipped.get('per')?.map(([c]) => c)).toContain('t:rate_limit');
  });

  it('credits a query word naming no concept where the listing names one buyers mean by it', () => {
    const wv = sharedWordVectors();
    const q = 'a single front door for my microservices';
    const gateway = listingWords(wv, {
      title: 'GraphQL API gateway',
      techStack: 'Node.js',
      description: 'One GraphQL endpoint stitching several REST services, with caching.',
    });
    const uptime = listingWords(wv, {
      title: 'Uptime monitor with status page',
      techStack: 'Go',
      description: 'Pings your endpoints every minute and alerts on downtime.',
    });
    const prep = (buyer: number) =>
      prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q, {
        ...CORPUS_CREDIT,
        buyer,
        // stop 54's whole-query neighbours held off: they credit the gateway too
        neighbours: 0,
      });
    const [on, off] = [prep(CORPUS_CREDIT.buyer), prep(0)];
    expect(CORPUS_CREDIT.buyer).toBeGreaterThan(0);
    expect(softMatchWords(wv, on, gateway)).toBeGreaterThan(softMatchWords(wv, off, gateway) + 0.1);
    expect(softMatchWords(wv, on, uptime)).toBe(softMatchWords(wv, off, uptime));
  });
});
