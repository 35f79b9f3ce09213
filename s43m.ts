import { lexiconConcepts } from './src/domain/search/task-lexicon.js';
import { TASK_QUERIES } from './test/bench/relevance-tasks-set.js';
import { PARAPHRASE_LISTINGS } from './test/bench/relevance-paraphrase-set.js';
const miss = process.argv.slice(2);
const by = new Map(PARAPHRASE_LISTINGS.map((l) => [l.key, l]));
for (const q of TASK_QUERIES) {
  if (miss.length && !miss.some((m) => q.q.startsWith(m))) continue;
  const qc = [...new Set([...lexiconConcepts(q.q, true).values()].flat())];
  const l = by.get(q.best[0]!)!;
  const tc = [...new Set([...lexiconConcepts(l.title).values()].flat())];
  const dc = [...new Set([...lexiconConcepts(l.description).values()].flat())];
  console.log(`${q.q.slice(0, 70)}\n   Q: ${qc.join(' ')}\n   T(${l.key}): ${tc.join(' ')} | D: ${dc.join(' ')}`);
}
