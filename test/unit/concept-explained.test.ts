import { describe, expect, it } from 'vitest';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import { querySignals, rankCandidates } from '../../src/domain/search/rank.js';
import {
  CORPUS_CREDIT,
  conceptCoverage,
  listingWords,
  prepareQuery,
} from '../../src/domain/search/soft-match.js';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import { rankedListing as listing } from '../helpers/ranking.js';

const wv = sharedWordVectors();
// stop 54's whole-query neighbours held off: they predict web push for "send notifications", which
// explains the whole title (the mechanism shown here is the share of the title explained)
const prepared = (q: string) =>
  prepareQuery(wv, tokenize(q), -0.8, undefined, 1, 0.8, q, { ...CORPUS_CREDIT, neighbours: 0 });

// two listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts)
// with the lexical and vector signals the relevance bench gives them for the query below
const WEB_PUSH = listing(
  'webpush',
  'Web push notification sender',
  'Node.js, web-push',
  'Stores browser push subscriptions, signs VAPID payloads and delivers notifications to Chrome, Firefox and Safari.',
  0.183,
  0.3,
);
const DIGEST = listing(
  'digest',
  'Daily e-mail digest builder',
  'Node.js, Nodemailer',
  'Collects events during the day and mails each user a single summary in the morning, with unsubscribe links.',
  0.216,
  0.406,
);

describe('the concept signal, explained titles (stop 46)', () => {
  it('keeps the coverage where the query explains every task word of the title, lowers it where it explains some', () => {
    const q = prepared('send notifications');
    const doc = listingWords(wv, WEB_PUSH);
    const full = conceptCoverage(q, doc, 0.5, 0)!;
    expect(full).toBeGreaterThan(0);
    // the title names web push as well as notifications: part of the title is left unexplained
    const explained = conceptCoverage(q, doc, 0.5, CALIBRATION.conceptExplained)!;
    expect(explained).toBeLessThan(full);
    expect(explained).toBeGreaterThanOrEqual(full * (1 - CALIBRATION.conceptExplained));
    // a query naming the title's every task keeps the coverage in full
    const all = prepared('web push notifications');
    expect(conceptCoverage(all, doc, 0.5, CALIBRATION.conceptExplained)).toBeCloseTo(
      conceptCoverage(all, doc, 0.5, 0)!,
      9,
    );
    // the sentence option keeps the coverage alone
    expect(SENTENCE_CALIBRATION.conceptExplained).toBe(0);
  });

  it('lets the listing whose whole title the need explains lead one that names a single concept of it', () => {
    // "notifications" names notify (the web push sender's title); the need is a daily digest
    const q = querySignals("batch a day's notifications into one summary per person");
    const first = (c = CALIBRATION) => rankCandidates(q, [WEB_PUSH, DIGEST], 'fused', c)[0]!.row.id;
    // (stop 49's sibling lift, which also reads the digest's description, held off for the control)
    // (and stop 54's whole-query neighbours, which also name the digest)
    const alone = { ...CALIBRATION, siblingLift: 0, conceptNeighbours: 0 };
    expect(first({ ...alone, conceptExplained: 0 })).toBe('webpush');
    expect(first(alone)).toBe('digest');
    expect(first()).toBe('digest');
  });
});
