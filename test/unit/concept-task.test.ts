import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildTaskTable,
  learnTaskShares,
  settingQueries,
} from '../../scripts/build-buyer-corpus.js';
import { CALIBRATION, SENTENCE_CALIBRATION } from '../../src/domain/search/calibration.js';
import { querySignals, rankCandidates } from '../../src/domain/search/rank.js';
import {
  CORPUS_CREDIT,
  conceptCoverage,
  listingWords,
} from '../../src/domain/search/soft-match.js';
import {
  CONCEPT_TASKS_FILE,
  conceptTasks,
  parseConceptTasks,
} from '../../src/domain/search/software-corpus.js';
import { taskLexicon } from '../../src/domain/search/task-lexicon.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import { preparedWith, rankedListing as listing } from '../helpers/ranking.js';

const wv = sharedWordVectors();
const prepared = (q: string, task: number) => preparedWith(q, { task });

// listings of the paraphrase set's catalogue (test/bench/relevance-paraphrase-set.ts), with the
// lexical and vector signals the relevance bench gives them for the query below
const UPTIME = listing(
  'uptime',
  'Uptime checker with public status page',
  'Go, SQLite, HTML',
  'Pings websites and APIs every minute, records response times and incidents and renders a status page for users.',
  0.065,
  0.3,
);
const QUEUE = listing(
  'queue',
  'Background job queue with dashboard',
  'Node.js, BullMQ, Redis',
  'Moves slow work out of request handlers into workers with priorities, delays, progress reporting and a web dashboard.',
  0.075,
  0.447,
);
const DOWN =
  "find out right away when my website goes down and let customers see whether it's working";

describe('concept task shares (stop 51)', () => {
  it('rebuilds the committed table byte for byte, every concept one of the lexicon', () => {
    expect(buildTaskTable(settingQueries())).toBe(readFileSync(CONCEPT_TASKS_FILE, 'utf8'));
    const known = taskLexicon().concepts;
    const { overall, shares } = conceptTasks();
    for (const [c, share] of shares) {
      expect(known.has(c.slice(2)), c).toBe(true);
      expect(share).toBeGreaterThan(0);
      expect(share).toBeLessThanOrEqual(1);
    }
    // a phone, a mail, the job queue's "working" are mostly a task's context; an IP locator is asked for as itself
    expect(shares.get('t:mobile_push')!).toBeLessThan(overall);
    expect(shares.get('t:email')!).toBeLessThan(overall);
    expect(shares.get('t:job_queue')!).toBeLessThan(overall);
    expect(shares.get('t:geoip')!).toBeGreaterThan(overall);
    expect(() => parseConceptTasks('p 0.2\nt sms\n')).toThrow(/line 2/);
    expect(() => parseConceptTasks('t sms 0.3\n')).toThrow(/no "p share"/);
  });

  it('learns the share of the queries naming a concept that ask for it, shrunk to the overall share', () => {
    const data = [
      { concept: 'sms', query: 'text their phones when the order ships' },
      { concept: 'two_factor', query: 'a code from the phone app at login' },
      { concept: 'mobile_push', query: 'buzz android phones' },
      { concept: 'geoip', query: 'which country is this ip address from' },
    ];
    const { overall, shares } = learnTaskShares(data, 0);
    // three queries name a phone, one of them asks for mobile push; the sign-in one names sign-in
    expect(shares.get('mobile_push')).toBeCloseTo(1 / 3);
    expect(shares.get('geoip')).toBe(1);
    expect(overall).toBeGreaterThan(0);
    const shrunk = learnTaskShares(data, 5).shares.get('geoip')!;
    expect(shrunk).toBeLessThan(1);
    expect(shrunk).toBeGreaterThan(overall);
  });

  it("weighs a query's context concept less in the concept signal, a lone concept not at all", () => {
    const uptime = listingWords(wv, UPTIME);
    const queue = listingWords(wv, QUEUE);
    const [on, off] = [prepared(DOWN, CORPUS_CREDIT.task), prepared(DOWN, 0)];
    // "website goes down" names uptime, "working" the job queue ("workers"), a context buyers
    // name far more often than they ask for it
    expect(conceptCoverage(on, uptime, 0.5)!).toBeGreaterThan(conceptCoverage(off, uptime, 0.5)!);
    expect(conceptCoverage(on, queue, 0.5)!).toBeLessThan(conceptCoverage(off, queue, 0.5)!);
    const lone = 'send push notifications to phones';
    expect(conceptCoverage(prepared(lone, CORPUS_CREDIT.task), queue, 0.5)).toBe(
      conceptCoverage(prepared(lone, 0), queue, 0.5),
    );
    expect(SENTENCE_CALIBRATION.conceptTask).toBe(0);
  });

  it('lets the uptime checker lead the job queue when the website going down is the task', () => {
    const q = querySignals(DOWN);
    const first = (c = CALIBRATION) => rankCandidates(q, [QUEUE, UPTIME], 'fused', c)[0]!.row.id;
    // (stop 54's whole-query neighbours, which also name the uptime checker, held off for the control)
    expect(first({ ...CALIBRATION, conceptTask: 0, conceptNeighbours: 0 })).toBe('queue');
    expect(first()).toBe('uptime');
  });
});
