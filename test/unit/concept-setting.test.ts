import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildSettingsTable,
  learnSettings,
  settingQueries,
} from '../../scripts/build-buyer-corpus.js';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import { querySignals, rankCandidates } from '../../src/domain/search/rank.js';
import {
  conceptCoverage,
  listingWords,
  softMatchWords,
} from '../../src/domain/search/soft-match.js';
import {
  CONCEPT_SETTINGS_FILE,
  conceptSettings,
  parseConceptSettings,
} from '../../src/domain/search/software-corpus.js';
import { taskLexicon } from '../../src/domain/search/task-lexicon.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import { preparedWith, rankedListing as listing } from '../helpers/ranking.js';

const wv = sharedWordVectors();
const prepared = (q: string, setting: number) => preparedWith(q, { setting });

// listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts), with the
// lexical and vector signals the relevance bench gives them for the query below
const SMS = listing(
  'sms',
  'SMS gateway wrapper for Twilio',
  'Python, Twilio',
  'Sends text messages with templates, delivery receipts, opt-out handling and per-country sender numbers.',
  0.11,
  0.379,
);
const PUSH = listing(
  'push',
  'Firebase Cloud Messaging client for Android',
  'Kotlin, Firebase',
  'Registers devices, receives push messages in the background and shows notifications with actions on Android phones.',
  0.14,
  0.449,
);
const JOBS = listing(
  'jobs',
  'Job board listing harvester',
  'Rust, reqwest, SQLite',
  'Collects job postings from several boards on a schedule, normalises salary and location fields and stores new postings without duplicates.',
  0,
  0,
);

describe('concept settings (stop 50)', () => {
  it('rebuilds the committed table byte for byte, every concept one of the lexicon, no pair both ways', () => {
    expect(buildSettingsTable(settingQueries())).toBe(readFileSync(CONCEPT_SETTINGS_FILE, 'utf8'));
    const known = taskLexicon().concepts;
    const table = conceptSettings();
    expect(table.get('t:mobile_push')?.has('t:sms')).toBe(true);
    expect(table.get('t:sign_in')?.has('t:two_factor')).toBe(true);
    for (const [b, tasks] of table)
      for (const a of tasks) {
        expect(known.has(b.slice(2)) && known.has(a.slice(2)), `${a} ${b}`).toBe(true);
        expect(table.get(a)?.has(b) ?? false, `${a} ${b}`).toBe(false);
      }
    expect(() => parseConceptSettings('s sms\n')).toThrow(/line 1/);
  });

  it("learns a task's settings from its own queries, not a pair that goes both ways", () => {
    const data = [
      { concept: 'two_factor', query: 'a code from the phone app at login' },
      { concept: 'two_factor', query: 'enter the code their phone shows when they log in' },
      { concept: 'two_factor', query: 'second factor after the login' },
      { concept: 'mobile_push', query: 'buzz android phones' },
      { concept: 'sign_in', query: 'let users log in with an authenticator app' },
      { concept: 'sign_in', query: 'login with a one time code' },
    ];
    const table = learnSettings(data, { minQueries: 2, minShare: 0.5 });
    // two of the three two-factor queries name a phone and all three a login; the sign-in queries
    // name two-factor as often, so that pair goes together and neither is the other's setting
    expect(table.get('two_factor')).toEqual(['mobile_push']);
    expect(table.has('sign_in')).toBe(false);
  });

  it('counts the setting as named for a listing whose whole title the query explains', () => {
    const q = 'text customers on their phones when the order ships';
    const sms = listingWords(wv, SMS);
    const push = listingWords(wv, PUSH);
    const [on, off] = [prepared(q, 1), prepared(q, 0)];
    // "phones" names mobile push, a setting of SMS in buyers' queries
    expect(conceptCoverage(on, sms, 0.5)!).toBeGreaterThan(conceptCoverage(off, sms, 0.5)!);
    expect(softMatchWords(wv, on, sms)).toBeGreaterThan(softMatchWords(wv, off, sms));
    expect(conceptCoverage(on, push, 0.5)).toBe(conceptCoverage(off, push, 0.5));
    expect(softMatchWords(wv, on, push)).toBe(softMatchWords(wv, off, push));
    // a scraper whose title names another task (job boards) does not get a shop's setting
    const shops = 'harvest item costs from webshops';
    const jobs = listingWords(wv, JOBS);
    expect(conceptCoverage(prepared(shops, 1), jobs, 0.5)).toBe(
      conceptCoverage(prepared(shops, 0), jobs, 0.5),
    );
    expect(SENTENCE_CALIBRATION.conceptSetting).toBe(0);
  });

  it('lets the SMS gateway lead the push client for texting customers on their phones', () => {
    const q = querySignals('text customers on their phones when the order ships');
    const first = (c = CALIBRATION) => rankCandidates(q, [PUSH, SMS], 'fused', c)[0]!.row.id;
    expect(first({ ...CALIBRATION, conceptSetting: 0 })).toBe('push');
    expect(first()).toBe('sms');
  });
});
