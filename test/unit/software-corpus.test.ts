import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import { listingWords, prepareQuery, softMatchWords } from '../../src/domain/search/soft-match.js';
import { parseSoftwareCorpus, softwareCorpus } from '../../src/domain/search/software-corpus.js';

const predicted = (stem: string) =>
  softwareCorpus()
    .concepts.get(stem)
    ?.map(([c]) => c) ?? [];

describe('the software corpus table (npm registry descriptions)', () => {
  it('loads, and gives the concepts that package descriptions using a word name', () => {
    const { concepts } = softwareCorpus();
    expect(concepts.size).toBeGreaterThan(500);
    // learned, not written: none of these words is an entry of the task lexicon
    expect(predicted('oauth2')).toContain('t:sign_in');
    expect(predicted('solidity')).toContain('t:ethereum');
    expect(predicted('thumbnail')).toContain('t:images');
    expect(predicted('translator')).toContain('t:i18n');
    expect(predicted('spam')).toContain('t:email');
    for (const list of concepts.values())
      for (const [, p] of list) {
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThanOrEqual(1);
      }
  });

  it('rejects a malformed line with its number', () => {
    expect(() => parseSoftwareCorpus('# header\nc spam email:x\n')).toThrow(/line 2/);
    expect(() => parseSoftwareCorpus('x spam email:0.4\n')).toThrow(/line 1/);
    // the word-to-word rows were dropped (stop 29) and are no longer read: the table is `c` rows
    expect(() => parseSoftwareCorpus('c spam email:0.38\nw spam junk:0.5\n')).toThrow(/line 2/);
    expect(parseSoftwareCorpus('c spam email:0.38\n').concepts.get('spam')).toEqual([
      ['t:email', 0.38],
    ]);
  });

  it('gives a query word that names no concept partial credit where a listing names one it predicts', () => {
    const wv = sharedWordVectors();
    const q = 'oauth2 server';
    const login = listingWords(wv, {
      title: 'JWT login and refresh-token service',
      techStack: 'Go',
      description: 'Issues short-lived access tokens and rotates refresh tokens.',
    });
    const chat = listingWords(wv, {
      title: 'WebSocket chat server with rooms',
      techStack: 'Node.js',
      description: 'Rooms, presence and message history over WebSockets.',
    });
    const on = prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q);
    const off = prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q, {
      concept: 0,
      buyer: 0,
      setting: 0,
      task: 0,
      neighbours: 0,
    });
    expect(softMatchWords(wv, on, login)).toBeGreaterThan(softMatchWords(wv, off, login) + 0.1);
    expect(softMatchWords(wv, on, chat)).toBe(softMatchWords(wv, off, chat));
  });
});
