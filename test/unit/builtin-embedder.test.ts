import { describe, expect, it } from 'vitest';
import { BuiltinEmbedder, embedText, stem, tokenize } from '../../src/embeddings/builtin.js';

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('built-in embedder', () => {
  it('splits camelCase, PascalCase, snake_case, kebab-case and stack names', () => {
    expect(tokenize('parseHTTPRequest user_id my-lib Node.js C++ C#')).toEqual([
      'parsehttprequest',
      'parse',
      'http',
      'request',
      'user',
      'id',
      'lib',
      'nodejs',
      'cpp',
      'csharp',
    ]);
  });

  it('keeps a product name whole beside its parts, so it matches as typed in lowercase', () => {
    expect(tokenize('PostgreSQL')).toEqual(['postgresql', 'postgre', 'sql']);
    expect(tokenize('TypeScript')).toContain('typescript');
    expect(tokenize('typescript')).toEqual(['typescript']);
  });

  it('drops the same stopwords as the lexical side (Snowball English)', () => {
    expect(tokenize('how fast can my web server answer under heavy traffic')).toEqual([
      'fast',
      'web',
      'server',
      'answer',
      'heavy',
      'traffic',
    ]);
  });

  it('stems plural and verb forms onto one form', () => {
    expect(stem('crawlers')).toBe(stem('crawler'));
    expect(stem('libraries')).toBe('library');
    expect(stem('caching')).toBe('cach');
  });

  it('returns deterministic unit vectors of the configured dimension', async () => {
    const e = new BuiltinEmbedder(128);
    const [a, b] = await e.embed(['redis rate limiter', 'redis rate limiter']);
    expect(a).toHaveLength(128);
    expect(a).toEqual(b);
    expect(cos(a!, a!)).toBeCloseTo(1, 6);
    expect(cos(embedText('', 64), embedText('', 64))).toBeCloseTo(1, 6);
  });

  it('puts paraphrases closer than unrelated text', () => {
    const doc = embedText('Web crawler that scrapes news articles politely', 256);
    const para = embedText('spider to harvest pages from websites', 256);
    const other = embedText('solidity token vesting contract', 256);
    expect(cos(doc, para)).toBeGreaterThan(cos(doc, other) + 0.1);
  });
});
