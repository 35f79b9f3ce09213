import { calibrationFor, fusedScore, similarityOf } from '../../src/domain/search/calibration.js';
import { candidateSignals, loadQuerySignals } from '../../src/domain/search/rank.js';
import { searchCandidates } from '../../src/domain/search/search.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { BUYER_SET, RELEVANCE_SETS, relevanceCatalogue, TASKS_SET } from './relevance.js';

/**
 * `npx tsx test/bench/relevance-explain.ts SET|demo "query" ...`: the fused ranking's signals for the
 * top candidates of each query on one judgment set's catalogue (for reading a miss, not a bench).
 */
const [setName, ...queries] = process.argv.slice(2);
// the tuning sets only: the fresh set is read by the relevance bench alone
const SETS = [...RELEVANCE_SETS, TASKS_SET, BUYER_SET];
const set = SETS.find((s) => s.name === setName);
if (setName !== 'demo' && !set) {
  console.error(`set "${setName}": one of demo, ${SETS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const listings = set ? set.listings : DEMO_LISTINGS.map((l) => ({ ...l, key: l.title }));
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
