import { describe, expect, it } from 'vitest';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import { querySignals, rankCandidates, type CandidateRow } from '../../src/domain/search/rank.js';
import { conceptSignal, prepareQuery } from '../../src/domain/search/soft-match.js';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';

const wv = sharedWordVectors();
const prepared = (q: string) => prepareQuery(wv, tokenize(q), -0.8, undefined, 1, 0.8, q);

// two listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts)
const listing = (id: string, title: string, techStack: string, description: string) =>
  ({
    id,
    title,
    techStack,
    description,
    promptSummary: null,
    lexical: 0,
    cosine: 0.3,
  }) as CandidateRow;
const API_KEYS = listing(
  'keys',
  'API key issuing and verification service',
  'Node.js, Fastify, PostgreSQL',
  'Creates hashed keys for customers, scopes them to operations, rotates and revokes them and records last use.',
);
const JWT = listing(
  'jwt',
  'JWT session issuer with refresh rotation',
  'Go, PostgreSQL',
  'Authentication microservice issuing short-lived access tokens and rotating refresh tokens, bcrypt password hashing and account lockout.',
);

describe('the concept signal (stop 45)', () => {
  it('is the coverage where the words naming concepts carry the query, the meaning signal where none is named', () => {
    // every content word names a concept: the coverage in full
    expect(conceptSignal(prepared('rate limiter'), 0.3, 0.9, 4)).toBeCloseTo(0.3, 5);
    // no concept named: the meaning signal, whatever the share
    expect(conceptSignal(prepared('quantum marmalade'), undefined, 0.4, 4)).toBe(0.4);
    // share 0 (and the sentence option) keep the coverage alone
    expect(conceptSignal(prepared('ask for the number shown in a phone app'), 1, 0.2, 0)).toBe(1);
    expect(SENTENCE_CALIBRATION.conceptShare).toBe(0);
  });

  it('mixes in the meaning signal when one passing word of a sentence names the only concept', () => {
    const q = prepared(
      'after the password, also ask for the changing number shown in a phone app on every sign-up of a new device',
    );
    const s = conceptSignal(q, 1, 0.2, CALIBRATION.conceptShare);
    expect(s).toBeGreaterThan(0.2);
    expect(s).toBeLessThan(1);
    // in proportion: the more weight the naming words carry, the closer to the coverage
    expect(conceptSignal(q, 1, 0.2, 2 * CALIBRATION.conceptShare)).toBeGreaterThan(s);
  });

  it('lets the listing that covers the sentence lead one whose title names its one passing concept', () => {
    // "credentials" names sign-in (the JWT service's title); the need is issuing API keys
    const q = querySignals(
      'give partners credentials for calling our platform programmatically, and let them cancel a leaked one',
    );
    const first = (c = CALIBRATION) => rankCandidates(q, [JWT, API_KEYS], 'fused', c)[0]!.row.id;
    expect(first({ ...CALIBRATION, conceptShare: 0 })).toBe('jwt');
    expect(first()).toBe('keys');
  });
});
