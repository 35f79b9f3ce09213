import {
  CALIBRATION,
  calibrationFor,
  fusedScore,
  similarityOf,
  type Calibration,
  type CandidateSignals,
} from '../../src/domain/search/calibration.js';
import { candidateSignals, loadQuerySignals } from '../../src/domain/search/rank.js';
import { searchCandidates } from '../../src/domain/search/search.js';
import {
  halfOf,
  judge,
  mean,
  RELEVANCE_SETS,
  relevanceCatalogue,
  type Judgment,
} from './relevance.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';

/**
 * The everyday queries on the demo catalogue, and the listing each must rank first (the
 * acceptance examples of issue 11, asserted by test/integration/search.test.ts): a hard constraint.
 */
const DEMO_FIRST: Array<[string, (title: string, stack: string) => boolean]> = [
  ['parse csv files in python', (t) => t === 'CSV to JSON streaming converter CLI'],
  ['jwt auth middleware for express', (t) => t === 'JWT login and refresh-token service'],
  ['rust cli argument parsing', (_, stack) => /Rust/.test(stack)],
  ['send email notifications', (t) => t === 'Email newsletter sender'],
  // issue 30's
  [
    'stop clients from hammering my node api',
    (t) => t === 'Redis token-bucket rate limiter middleware',
  ],
  ['notice weird spikes in what my servers print', (t) => t === 'Log file anomaly detector'],
  ['python csv parser', (t) => t !== 'Recursive descent JSON parser'],
];

/**
 * `npm run bench -- relevance_tune`: proposes the fused ranking's calibration (calibration.ts,
 * CALIBRATION) from the tuning halves of every relevance set (relevance.ts RELEVANCE_SETS) only, by
 * grid search. Configurations are ordered by how many of the everyday queries on the demo
 * catalogue they rank right (DEMO_FIRST), then by whether no query family of issue 11's set ranks
 * worse than under REFERENCE, then by hit@1 + nDCG@10 summed over the sets, then by whether every
 * set's tuning gap reaches MIN_GAP, then by the smaller set gap. The held-out halves are never
 * looked at here: `npm run bench -- relevance` reports them for a proposal, and a proposal ships
 * only if they do not fall and the acceptance tests (test/integration/search*.test.ts) pass
 * (docs/search-meaning.md: the top proposal of issue 30's second stop did not).
 */
/** The gap goal. */
const MIN_GAP = 1.5;
/**
 * The calibration issue 30's work started from; issue 30 asks that no query family of the earlier
 * set (issue 11's) rank worse than under it: hit@1 no lower, nDCG@10 at most 0.01 lower, on the
 * tuning half (a constraint of the tuning, as the demo queries are).
 */
const REFERENCE: Calibration = {
  ...CALIBRATION,
  lexical: 0.1,
  vector: 0.1,
  meaning: 0.6,
  phrase: 0.2,
  concept: 0,
  conceptBody: 1,
  meaningBody: 1,
  lexicalKnown: 0,
  cosineFloor: 0.3,
  cosineFull: 0.6,
  softFloor: -0.8,
  softFull: 1,
  lexiconMatch: 0.8,
  scoreFull: 0.6,
  scoreZero: 0.1,
  stackMiss: 0.7,
  floor: 1,
};
const EARLIER_SET = 'issue11';
/** BENCH_TUNE_GRID=corpus: corpusConcept values (0 is off). */
const CORPUS_GRID: readonly number[] = [0, 0.5, 1, 1.5, 2, 3];

/** BENCH_TUNE_GRID=buyer: buyerConcept values (0 is off; BENCH_BUYER_GRID sets them, e.g. "0,12,24"). */
const BUYER_GRID: readonly number[] = process.env.BENCH_BUYER_GRID
  ? process.env.BENCH_BUYER_GRID.split(',').map(Number)
  : [0, 3, 6, 12, 24, 48];

type Ranked = Array<{ key: string; s: CandidateSignals }>;

export async function benchRelevanceTune(): Promise<Record<string, unknown>> {
  const sets = await Promise.all(
    RELEVANCE_SETS.map(async (set) => ({ set, ...(await relevanceCatalogue(set.listings)) })),
  );
  const demo = await relevanceCatalogue(DEMO_LISTINGS.map((l) => ({ ...l, key: l.title })));
  try {
    const demoCandidates = [];
    for (const [q, wanted] of DEMO_FIRST)
      demoCandidates.push({
        wanted,
        query: await loadQuerySignals(demo.sql, q),
        rows: await searchCandidates(
          demo.sql,
          demo.embedder,
          { q },
          { efSearch: 100, ratingThreshold: 5, variant: 'fused' },
        ),
      });
    // every set's tuning half, each in its own catalogue
    const perSet = await Promise.all(
      sets.map(async ({ set, sql, embedder, keyOf }) => ({
        name: set.name,
        keyOf,
        candidates: await Promise.all(
          set.queries
            .filter((q) => halfOf(q) === 'tuning')
            .map(async (q) => ({
              q,
              query: await loadQuerySignals(sql, q.q),
              rows: await searchCandidates(
                sql,
                embedder,
                { q: q.q },
                { efSearch: 100, ratingThreshold: 5, variant: 'fused' },
              ),
            })),
        ),
      })),
    );
    type Result = {
      c: Calibration;
      objective: number;
      sets: Record<string, { hit1: number; ndcg10: number; gap: number }>;
      demo: number;
      /** whether no query family of the earlier set (issue 11's) ranks worse than REFERENCE does */
      earlierOk: boolean;
    };
    // the earlier set's tuning half per query family under the reference calibration
    const families = (name: string, c: Calibration, sig: (si: number, i: number) => Ranked) => {
      const si = perSet.findIndex((s) => s.name === name);
      const byKind = new Map<string, Judgment[]>();
      perSet[si]!.candidates.forEach(({ q }, i) =>
        byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), judge(q, rank(sig(si, i), c))]),
      );
      return new Map(
        [...byKind].map(([k, js]) => [
          k,
          { hit1: mean(js, (x) => x.hit1), ndcg10: mean(js, (x) => x.ndcg10) },
        ]),
      );
    };
    const signalsFor = (c: Calibration) =>
      perSet.map(({ keyOf, candidates }) =>
        candidates.map(({ query, rows }) =>
          rows.map((row) => ({ key: keyOf.get(row.id)!, s: candidateSignals(query, row, c) })),
        ),
      );
    // BENCH_TUNE_GRID=corpus (issue 30, the npm registry's descriptions): only the software
    // corpus's credits are searched, every other constant at its shipped value, and no family of
    // issue 11's tuning half may rank worse than under the shipped calibration with them off.
    // BENCH_TUNE_GRID=buyer (issue 30, buyer queries labelled with their concept): the same for
    // the buyer corpus's credit, against the shipped calibration with it off.
    const buyerGrid = process.env.BENCH_TUNE_GRID === 'buyer';
    const corpusGrid = process.env.BENCH_TUNE_GRID === 'corpus' || buyerGrid;
    const earlier = buyerGrid
      ? { ...CALIBRATION, buyerConcept: 0 }
      : corpusGrid
        ? { ...CALIBRATION, corpusConcept: 0 }
        : REFERENCE;
    const refSignals = signalsFor(earlier);
    const reference = families(EARLIER_SET, earlier, (si, i) => refSignals[si]![i]!);
    const results: Result[] = [];
    // (softFloor -0.5 and lexiconMatch 1 never led: left out to keep a run near two minutes)
    // BENCH_TUNE_GRID=vector (issue 30's third stop, for a sentence encoder's cosine): the vector
    // signal's weight and its cosine mapping are searched; the second stop's dropped signals stay
    // at their shipped values.
    const vectorGrid = process.env.BENCH_TUNE_GRID === 'vector';
    const cosineMaps: Array<readonly [number, number]> = vectorGrid
      ? [
          [0.3, 0.6],
          [0.2, 0.6],
          [0.2, 0.5],
          [0.1, 0.5],
          [0.3, 0.7],
        ]
      : [[0.3, 0.6]];
    for (const [softFloor, softFull] of [[-0.8, 1]] as const)
      for (const lexiconMatch of corpusGrid ? [0.8] : [0.8, 0.9])
        for (const lexicalKnown of vectorGrid ? [0] : corpusGrid ? [1] : [0, 1])
          for (const conceptBody of vectorGrid ? [1] : corpusGrid ? [0.5] : [1, 0.5])
            for (const meaningBody of vectorGrid ? [1] : corpusGrid ? [0.8] : [1, 0.9, 0.8])
              for (const [cosineFloor, cosineFull] of cosineMaps)
                for (const [corpusConcept, buyerConcept] of buyerGrid
                  ? BUYER_GRID.map((b) => [CALIBRATION.corpusConcept, b] as const)
                  : corpusGrid
                    ? CORPUS_GRID.map((c) => [c, 0] as const)
                    : [[0, 0] as const]) {
                  // the signals depend on these only; the weights below just combine them
                  const base = {
                    ...calibrationFor(demo.embedder.model),
                    softFloor,
                    softFull,
                    cosineFloor,
                    cosineFull,
                    lexiconMatch,
                    lexicalKnown,
                    conceptBody,
                    meaningBody,
                    corpusConcept,
                    buyerConcept,
                  };
                  const signals = perSet.map(({ keyOf, candidates }) =>
                    candidates.map(({ query, rows }) =>
                      rows.map((row) => ({
                        key: keyOf.get(row.id)!,
                        s: candidateSignals(query, row, base),
                      })),
                    ),
                  );
                  const demoSignals = demoCandidates.map(({ wanted, query, rows }) => ({
                    wanted,
                    rows: rows.map((row) => ({ row, s: candidateSignals(query, row, base) })),
                  }));
                  // weights summing to 1, so the similarity's scale stays comparable
                  const weights: Array<[number, number, number, number, number]> = [];
                  // The earlier signals keep issue 30's first weights (lexical 0.1, vector 0.1, phrase
                  // 0.2); only the new ones are searched (the concept signal's share of the meaning
                  // weight, lexicalKnown, stackMiss, scoreFull). A free search over every weight found
                  // configurations 0.03-0.1 better on the tuning halves and up to 0.05 worse on the
                  // held-out ones: with 70-75 tuning queries a set, more freedom fits their noise.
                  for (const lexical of [0.1])
                    for (const vector of vectorGrid ? [0.05, 0.1, 0.15, 0.2, 0.3] : [0.1])
                      for (const phrase of [0.2])
                        for (const concept of vectorGrid
                          ? [0]
                          : corpusGrid
                            ? [0.1]
                            : [0, 0.1, 0.2, 0.3]) {
                          const meaning = +(1 - lexical - vector - phrase - concept).toFixed(2);
                          if (meaning >= 0.1)
                            weights.push([lexical, vector, meaning, phrase, concept]);
                        }
                  for (const [lexical, vector, meaning, phrase, concept] of weights)
                    for (const stackMiss of corpusGrid ? [0.7] : [0.4, 0.5, 0.6, 0.7])
                      for (const [scoreFull, scoreZero] of corpusGrid
                        ? [[0.5, 0.1] as const]
                        : ([
                            [0.6, 0.1],
                            [0.6, 0.15],
                            [0.5, 0.1],
                            [0.5, 0.15],
                            [0.4, 0.1],
                          ] as const))
                        for (const floor of [1]) {
                          if (!lexical || !meaning) continue;
                          const c: Calibration = {
                            ...base,
                            lexical,
                            vector,
                            meaning,
                            phrase,
                            concept,
                            stackMiss,
                            scoreFull,
                            scoreZero,
                            floor,
                          };
                          const bySet: Result['sets'] = {};
                          let objective = 0;
                          perSet.forEach(({ name, candidates }, si) => {
                            const js: Judgment[] = candidates.map(({ q }, i) =>
                              judge(q, rank(signals[si]![i]!, c)),
                            );
                            const r = {
                              hit1: mean(js, (x) => x.hit1),
                              ndcg10: mean(js, (x) => x.ndcg10),
                              gap: mean(js, (x) => x.gap),
                            };
                            bySet[name] = r;
                            objective += r.hit1 + r.ndcg10;
                          });
                          const demoOk = demoSignals.filter(({ wanted, rows }) => {
                            const top = rows.reduce((a, b) =>
                              fusedScore(b.s, c) > fusedScore(a.s, c) ? b : a,
                            );
                            return wanted(top.row.title, top.row.techStack);
                          }).length;
                          const fam = families(EARLIER_SET, c, (si, i) => signals[si]![i]!);
                          const earlierOk = [...reference].every(
                            ([k, ref]) =>
                              fam.get(k)!.hit1 >= ref.hit1 &&
                              fam.get(k)!.ndcg10 >= ref.ndcg10 - 0.01,
                          );
                          results.push({ c, objective, sets: bySet, demo: demoOk, earlierOk });
                        }
                }
    // the demo queries are a constraint, no family of the earlier set worse a second; among the
    // configurations that meet them, the best ranking over every set's tuning half wins, then the
    // one whose every set reaches the gap goal. (Ordering by the gap goal before the ranking picked
    // configurations that bought gap with hit@1: tuning paraphrase-set hit@1 0.867 -> 0.827, its
    // long family 0.615 -> 0.462.)
    const gapOk = (r: Result) => +Object.values(r.sets).every((x) => x.gap >= MIN_GAP);
    results.sort(
      (a, b) =>
        b.demo - a.demo ||
        +b.earlierOk - +a.earlierOk ||
        b.objective - a.objective ||
        gapOk(b) - gapOk(a) ||
        Math.min(...Object.values(b.sets).map((x) => x.gap)) -
          Math.min(...Object.values(a.sets).map((x) => x.gap)),
    );
    console.table(
      results.slice(0, corpusGrid ? 40 : 15).map((r) => ({
        ...r.c,
        ...Object.fromEntries(
          Object.entries(r.sets).flatMap(([n, x]) => [
            [`${n} hit1`, x.hit1],
            [`${n} ndcg`, x.ndcg10],
            [`${n} gap`, x.gap],
          ]),
        ),
        demo: r.demo,
        earlierOk: r.earlierOk,
      })),
    );
    const best = results[0]!;
    return {
      tuning_queries: perSet.map((s) => `${s.name}: ${s.candidates.length}`),
      configurations: results.length,
      chosen: best,
    };
  } finally {
    for (const s of sets) await s.runtime.close();
    await demo.runtime.close();
  }
}

function rank(rows: Array<{ key: string; s: CandidateSignals }>, c: Calibration) {
  return rows
    .map((r) => ({ key: r.key, score: fusedScore(r.s, c) }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1))
    .map((r) => ({ key: r.key, similarity: similarityOf(r.score, c) }))
    .filter((r) => r.similarity >= c.floor && r.similarity > 0)
    .slice(0, 20);
}
