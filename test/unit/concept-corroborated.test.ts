import { describe, expect, it } from 'vitest';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import {
  noteCandidates,
  querySignals,
  rankCandidates,
  type CandidateRow,
} from '../../src/domain/search/rank.js';
import { conceptCoverage, listingWords, prepareQuery } from '../../src/domain/search/soft-match.js';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';

const wv = sharedWordVectors();
const prepared = (q: string) => prepareQuery(wv, tokenize(q), -0.8, undefined, 1, 0.8, q);

// two listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts) with
// the lexical and vector signals the relevance bench gives them for the query below (and, below,
// the query's word IDFs and known share in that catalogue)
const listing = (
  id: string,
  title: string,
  techStack: string,
  description: string,
  lexical: number,
  cosine: number,
) => ({ id, title, techStack, description, promptSummary: null, lexical, cosine }) as CandidateRow;
const MAGIC_LINK = listing(
  'magic',
  'Passwordless magic-link authentication',
  'TypeScript, Express',
  'Users type their e-mail address and receive a one-time sign-in link; tokens expire after fifteen minutes and are single use.',
  0.172,
  0.475,
);
const PRICE_WATCH = listing(
  'price',
  'Price drop watcher with e-mail alerts',
  'Python, SQLite',
  'Tracks product pages from online shops you add to a wish list, checks them daily and e-mails you when the price falls below your target.',
  0.353,
  0.387,
);
const NEED = 'drop passwords entirely and sign people in through their inbox';

describe('the concept signal, corroborated concepts (stop 47)', () => {
  it('counts a concept the query does not name where two of its words predict it', () => {
    // the query names e-mail ("inbox") only; "passwords" and "sign" both predict passwordless
    const q = prepared(NEED);
    const magic = listingWords(wv, MAGIC_LINK);
    const price = listingWords(wv, PRICE_WATCH);
    const c = CALIBRATION.conceptCorroborated;
    expect(c).toBeGreaterThan(0);
    expect(conceptCoverage(q, magic, 0.5, 0, c)!).toBeGreaterThan(
      conceptCoverage(q, magic, 0.5, 0, 0)!,
    );
    // and never lowers a listing's share of the concepts the query names (the price watcher's
    // title names e-mail)
    expect(conceptCoverage(q, price, 0.5, 0, c)).toBe(conceptCoverage(q, price, 0.5, 0, 0));
    // the sentence option keeps the named concepts alone
    expect(SENTENCE_CALIBRATION.conceptCorroborated).toBe(0);
  });

  it("leaves out one word's guesses, and a query that names no concept", () => {
    const magic = listingWords(wv, MAGIC_LINK);
    // "passwords" alone predicts passwordless (and four other concepts): no second word agrees
    const one = prepared('passwords in my inbox');
    expect(conceptCoverage(one, magic, 0.5, 0, 1)).toBe(conceptCoverage(one, magic, 0.5, 0, 0));
    // no concept named: the concept signal stays the meaning signal's (undefined here)
    const none = prepared('drop passwords entirely and let people sign');
    expect(conceptCoverage(none, magic, 0.5, 0, 0)).toBeUndefined();
    expect(conceptCoverage(none, magic, 0.5, 0, 1)).toBeUndefined();
  });

  it('lets the magic-link service lead the price watcher whose title names the e-mail the query mentions', () => {
    const idf = new Map([
      ['sign', 3.018],
      ['drop', 3.605],
      ['passwords', 3.269],
    ]);
    const q = { ...querySignals(NEED, idf), known: 0.445 };
    const first = (c = CALIBRATION) =>
      rankCandidates(q, [MAGIC_LINK, PRICE_WATCH], 'fused', c)[0]!.row.id;
    expect(first({ ...CALIBRATION, conceptCorroborated: 0 })).toBe('price');
    expect(first()).toBe('magic');
  });
});

// a sibling of the magic-link service: its title names passwordless sign-in too
const PASSKEYS = listing(
  'passkeys',
  'Passwordless passkey login',
  'Go',
  'Registers WebAuthn passkeys and signs users in with their fingerprint or face, no password to remember.',
  0.1,
  0.4,
);

describe('corroborated concepts and siblings (stop 48)', () => {
  it('counts a corroborated concept only where at most one candidate title names it', () => {
    const magic = listingWords(wv, MAGIC_LINK);
    const c = CALIBRATION.conceptCorroborated;
    const siblings = CALIBRATION.corroboratedSiblings;
    expect(siblings).toBe(1);
    const coverage = (candidates: CandidateRow[], corroborated = c) => {
      const q = querySignals(NEED);
      noteCandidates(q, candidates);
      const p = prepared(NEED);
      p.titleCounts = q.titleCounts;
      return conceptCoverage(p, magic, 0.5, 0, corroborated, siblings)!;
    };
    const alone = coverage([MAGIC_LINK, PRICE_WATCH]);
    const withSibling = coverage([MAGIC_LINK, PRICE_WATCH, PASSKEYS]);
    // alone among the candidates, the magic-link service is lifted (stop 47)
    expect(alone).toBeGreaterThan(coverage([MAGIC_LINK, PRICE_WATCH], 0));
    // with a second passwordless listing, the concept names a family and lifts neither
    expect(withSibling).toBe(coverage([MAGIC_LINK, PRICE_WATCH], 0));
  });

  it('ranks as without corroboration when a sibling is among the candidates', () => {
    const idf = new Map([
      ['sign', 3.018],
      ['drop', 3.605],
      ['passwords', 3.269],
    ]);
    const order = (rows: CandidateRow[], c = CALIBRATION) =>
      rankCandidates({ ...querySignals(NEED, idf), known: 0.445 }, rows, 'fused', c).map(
        (r) => r.row.id,
      );
    const rows = [MAGIC_LINK, PRICE_WATCH, PASSKEYS];
    expect(order(rows)).toEqual(order(rows, { ...CALIBRATION, conceptCorroborated: 0 }));
    // without the sibling rule the family is lifted (both passwordless listings rise)
    const unbounded = { ...CALIBRATION, corroboratedSiblings: Infinity };
    expect(order(rows, unbounded)).not.toEqual(
      order(rows, { ...CALIBRATION, conceptCorroborated: 0 }),
    );
  });
});
