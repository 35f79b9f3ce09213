import {
  CALIBRATION,
  candidateSignals,
  fusedScore,
  querySignals,
  searchCandidates,
  similarityOf,
  type Calibration,
  type CandidateSignals,
} from '../../src/domain/search/search.js';
import { halfOf, judge, mean, relevanceCatalogue, type Judgment } from './relevance.js';
import { RELEVANCE_QUERIES } from './relevance-set.js';

/**
 * `npm run bench -- relevance_tune`: chooses the fused ranking's calibration (search.ts,
 * CALIBRATION) on the tuning half of the relevance set only, by grid search. The objective is
 * hit@1 + nDCG@10 over the tuning queries, among the configurations whose similarity gap there is
 * at least MIN_GAP; ties go to the larger gap. The held-out half
 * is never looked at here: `npm run bench -- relevance` reports it for the chosen values.
 */
/** The gap goal. */
const MIN_GAP = 1.5;

export async function benchRelevanceTune(): Promise<Record<string, unknown>> {
  const { runtime, sql, embedder, keyOf } = await relevanceCatalogue();
  try {
    const tuning = RELEVANCE_QUERIES.filter((q) => halfOf(q) === 'tuning');
    const candidates = await Promise.all(
      tuning.map(async (q) => ({
        q,
        query: querySignals(q.q),
        rows: await searchCandidates(
          sql,
          embedder,
          { q: q.q },
          { efSearch: 100, ratingThreshold: 5, variant: 'fused' },
        ),
      })),
    );
    const results: Array<{
      c: Calibration;
      objective: number;
      hit1: number;
      ndcg10: number;
      gap: number;
    }> = [];
    for (const softFloor of [-0.8, -0.7, -0.6, -0.5])
      for (const [cosineFloor, cosineFull] of [
        [0.3, 0.5],
        [0.3, 0.6],
      ] as const) {
        // the signals depend on these two only; the weights below just combine them
        const base = { ...CALIBRATION, softFloor, cosineFloor, cosineFull };
        const signals = candidates.map(({ query, rows }) =>
          rows.map((row) => ({ key: keyOf.get(row.id)!, s: candidateSignals(query, row, base) })),
        );
        // weights on a 0.1 grid summing to 1, so the similarity's scale stays comparable
        for (const [lexical, vector, meaning] of simplex(3, 10) as number[][] as Array<
          [number, number, number]
        >)
          for (const stackMiss of [0.5, 0.6, 0.7])
            for (const scoreFull of [0.8, 0.7, 0.6, 0.5])
              for (const floor of [1, 1.5, 2]) {
                if (!lexical || !meaning) continue;
                const c: Calibration = {
                  ...base,
                  lexical,
                  vector,
                  meaning,
                  stackMiss,
                  scoreFull,
                  floor,
                };
                const js: Judgment[] = candidates.map(({ q }, i) => judge(q, rank(signals[i]!, c)));
                const hit1 = mean(js, (x) => x.hit1);
                const ndcg10 = mean(js, (x) => x.ndcg10);
                results.push({
                  c,
                  objective: hit1 + ndcg10,
                  hit1,
                  ndcg10,
                  gap: mean(js, (x) => x.gap),
                });
              }
      }
    // the gap goal is a constraint; among the configurations that meet it, the best ranking wins
    results.sort(
      (a, b) =>
        +(b.gap >= MIN_GAP) - +(a.gap >= MIN_GAP) || b.objective - a.objective || b.gap - a.gap,
    );
    console.table(
      results.slice(0, 15).map((r) => ({
        ...r.c,
        'tune hit1': r.hit1,
        'tune ndcg': r.ndcg10,
        'tune gap': r.gap,
      })),
    );
    const best = results[0]!;
    return { tuning_queries: tuning.length, configurations: results.length, chosen: best };
  } finally {
    await runtime.close();
  }
}

/** Every way to write `steps` tenths as `n` non-negative parts, as fractions. */
function simplex(n: number, steps: number): number[][] {
  if (n === 1) return [[steps / 10]];
  const out: number[][] = [];
  for (let k = 0; k <= steps; k++)
    for (const rest of simplex(n - 1, steps - k)) out.push([k / 10, ...rest]);
  return out;
}

function rank(rows: Array<{ key: string; s: CandidateSignals }>, c: Calibration) {
  return rows
    .map((r) => ({ key: r.key, score: fusedScore(r.s, c) }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1))
    .map((r) => ({ key: r.key, similarity: similarityOf(r.score, c) }))
    .filter((r) => r.similarity >= c.floor && r.similarity > 0)
    .slice(0, 20);
}
