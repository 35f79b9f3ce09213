import { calibrationFor, fusedScore, similarityOf } from '../../src/domain/search/calibration.js';
import { candidateSignals, loadQuerySignals } from '../../src/domain/search/rank.js';
import { searchCandidates } from '../../src/domain/search/search.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { RELEVANCE_SETS, relevanceCatalogue } from './relevance.js';

/**
 * `npx tsx test/bench/relevance-explain.ts SET|demo "query" ...`: the fused ranking's signals for the
 * top candidates of each query on one judgment set's catalogue (for reading a miss, not a bench).
 */
const [setName, ...queries] = process.argv.slice(2);
const listings =
  setName === 'demo'
    ? DEMO_LISTINGS.map((l) => ({ ...l, key: l.title }))
    : RELEVANCE_SETS.find((s) => s.name === setName)!.listings;
const { runtime, sql, embedder, keyOf } = await relevanceCatalogue(listings);
// the calibration of the embedder in use (EMBEDDINGS_BUILTIN=sentence has its own)
const c = calibrationFor(embedder.model);
for (const q of queries) {
  const signals = await loadQuerySignals(sql, q);
  const rows = await searchCandidates(sql, embedder, { q }, { efSearch: 100, ratingThreshold: 5 });
  const ranked = rows
    .map((row) => {
      const s = candidateSignals(signals, row, c);
      const score = fusedScore(s, c);
      return { key: keyOf.get(row.id), sim: similarityOf(score, c), ...s };
    })
    .sort((a, b) => b.sim - a.sim)
    .slice(0, Number(process.env.EXPLAIN_TOP ?? 6));
  console.log(q, c.floor);
  console.table(
    ranked.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? +v.toFixed(3) : v]),
      ),
    ),
  );
}
await runtime.close();
process.exit(0);
