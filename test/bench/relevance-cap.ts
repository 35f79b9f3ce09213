import {
  CALIBRATION,
  fusedScore,
  taskScore,
  type Calibration,
  type CandidateSignals,
} from '../../src/domain/search/calibration.js';
import {
  candidateSignals,
  loadQuerySignals,
  rankScored,
  type CandidateRow,
  type QuerySignals,
} from '../../src/domain/search/rank.js';
import { searchCandidates } from '../../src/domain/search/search.js';
import { halfOf, type Half } from './relevance-half.js';
import { benchSetsFor, judge, mean, relevanceCatalogue, type Judgment } from './relevance.js';
import type { RelevanceQuery } from './relevance-set.js';

/**
 * `npx tsx test/bench/relevance-cap.ts [variant ... | grid]` (stop 59): the saturation of the similarity
 * scale on tuning data only — the tuning halves (as BENCH_RELEVANCE_HALF=tuning reads them) and
 * the sets a tuning engineer names (fresh3-fresh6). Prints, per set, how many queries have two or
 * more listings at 4.9 and up, how many have an unrelated listing at 4.0 and up (with the query
 * and the listing), and the distributions of the wanted listing's similarity and the best
 * unrelated one's; then hit@1 / nDCG@10 / gap per set and family under each named calibration
 * variant (VARIANTS below) against the shipped one. Candidates are gathered once per query; each
 * variant re-ranks them as searchItems does (rankCandidates, the floor, 20 results). `grid`
 * prints one line per calibration of a grid over `scoreFull`, `scoreZero`, `capKnee` and
 * `capConcept` / `capOpen`: whether it passes stop 59's gate against the shipped one (no family of
 * any set lower in hit@1, nDCG@10 at most 0.01 lower), queries lost and gained, and each set's gap.
 * CAP_DETAIL=1 lists the queries with an unrelated listing at 4.0 and up, with its signals.
 */
const TUNING_FRESH = 'fresh3,fresh4,fresh5,fresh6';

interface Case {
  set: string;
  q: RelevanceQuery;
  query: QuerySignals;
  rows: CandidateRow[];
  keyOf: Map<string, string>;
}

/** Calibrations to compare with the shipped one (named on the command line). */
export const VARIANTS: Record<string, Partial<Calibration>> = {
  shipped: {},
  // the calibration stop 59 started from
  main: { scoreZero: 0.1 },
  z104: { scoreZero: 0.104 },
  z11: { scoreZero: 0.11 },
  z12: { scoreZero: 0.12 },
  soft95: { capKnee: 0.95 },
  soft9: { capKnee: 0.9 },
  gate: { capConcept: 0.5, capOpen: 0.8 },
};

const signalCache = new WeakMap<Case, CandidateSignals[]>();
/** rankCandidates with each candidate's signals computed once (the grid changes only how they combine). */
function rankCached(c: Case, cal: Calibration) {
  let sig = signalCache.get(c);
  if (!sig) signalCache.set(c, (sig = c.rows.map((row) => candidateSignals(c.query, row, cal))));
  return rankScored(
    c.query,
    c.rows,
    sig.map((s) => fusedScore(s, cal)),
    cal,
    true,
  );
}

function ranked(c: Case, cal: Calibration) {
  return rankCached(c, cal)
    .filter((r) => r.similarity >= cal.floor && r.similarity > 0)
    .slice(0, 20)
    .map((r) => ({ key: c.keyOf.get(r.row.id)!, similarity: r.similarity }));
}

async function cases(): Promise<{ cases: Case[]; close: () => Promise<void> }> {
  const tuning = benchSetsFor({ BENCH_RELEVANCE_HALF: 'tuning' }).map((s) => ({
    ...s,
    queries: s.tuningAll ? s.queries : s.queries.filter((q) => halfOf(q) === ('tuning' as Half)),
  }));
  const fresh = benchSetsFor({ BENCH_RELEVANCE_SETS: TUNING_FRESH });
  const catalogues = new Map<unknown, Awaited<ReturnType<typeof relevanceCatalogue>>>();
  const out: Case[] = [];
  for (const set of [...tuning, ...fresh]) {
    let cat = catalogues.get(set.listings);
    if (!cat) catalogues.set(set.listings, (cat = await relevanceCatalogue(set.listings)));
    for (const q of set.queries)
      out.push({
        set: set.name,
        q,
        keyOf: cat.keyOf,
        query: await loadQuerySignals(cat.sql, q.q),
        rows: await searchCandidates(
          cat.sql,
          cat.embedder,
          { q: q.q },
          { efSearch: 100, ratingThreshold: 5, variant: 'fused' },
        ),
      });
  }
  return {
    cases: out,
    close: async () => {
      for (const cat of catalogues.values()) await cat.runtime.close();
    },
  };
}

function histogram(xs: number[]): string {
  const bins = [0, 1, 2, 3, 3.5, 4, 4.5, 4.9, 5.01];
  const parts: string[] = [];
  for (let i = 0; i < bins.length - 1; i++) {
    const n = xs.filter((x) => x >= bins[i]! && x < bins[i + 1]!).length;
    parts.push(`[${bins[i]},${bins[i + 1] === 5.01 ? '5]' : `${bins[i + 1]})`} ${n}`);
  }
  return parts.join('  ');
}

function saturation(all: Case[], cal: Calibration, detail: boolean) {
  const bySet = new Map<string, Case[]>();
  for (const c of all) bySet.set(c.set, [...(bySet.get(c.set) ?? []), c]);
  const wanted: number[] = [];
  const unrelated: number[] = [];
  let twoAtCap = 0;
  let unrelatedHigh = 0;
  let unrelatedAtCap = 0;
  const twoMissed: string[] = [];
  const lines: string[] = [];
  for (const [set, cs] of bySet) {
    let setTwo = 0;
    let setUnrel = 0;
    for (const c of cs) {
      const r = ranked(c, cal);
      const j = judge(c.q, r);
      wanted.push(j.wantedSim);
      unrelated.push(j.unrelatedSim);
      if (r.filter((x) => x.similarity >= 4.9).length >= 2) {
        setTwo++;
        if (!j.hit1) twoMissed.push(`${set} "${c.q.q}"`);
      }
      const bad = r.filter(
        (x) => x.similarity >= 4 && !c.q.best.includes(x.key) && !c.q.ok?.includes(x.key),
      );
      if (bad.length) {
        setUnrel++;
        if (bad.some((x) => x.similarity >= 4.9)) unrelatedAtCap++;
        lines.push(
          `  ${set} [${c.q.kind}] ${j.hit1 ? 'hit ' : 'MISS'} "${c.q.q}" → ${r
            .slice(0, 4)
            .map((x) => `${x.key} ${x.similarity}`)
            .join(', ')} (want ${c.q.best.join('|')})`,
        );
        // the signals of the first unrelated one and of the first wanted one
        const idOf = new Map([...c.keyOf].map(([id, k]) => [k, id]));
        for (const key of [bad[0]!.key, r.find((x) => c.q.best.includes(x.key))?.key]) {
          const row = key && c.rows.find((x) => x.id === idOf.get(key));
          if (!row) continue;
          const s = candidateSignals(c.query, row, cal);
          const task = taskScore(s, cal);
          lines.push(
            `      ${key === bad[0]!.key ? 'unrelated' : 'wanted   '} ${key}: task ${task.toFixed(3)} lex ${s.lexical.toFixed(2)} vec ${s.vector.toFixed(2)} mean ${s.meaning.toFixed(2)} phr ${s.phrase.toFixed(2)} con ${s.concept.toFixed(2)} stack ${s.stack.toFixed(2)}`,
          );
        }
      }
    }
    twoAtCap += setTwo;
    unrelatedHigh += setUnrel;
    console.log(`${set}: ${cs.length} queries, ≥2 at ≥4.9: ${setTwo}, unrelated ≥4.0: ${setUnrel}`);
  }
  console.log(
    `all: ${all.length} queries, ≥2 at ≥4.9: ${twoAtCap}, unrelated ≥4.0: ${unrelatedHigh} (at ≥4.9: ${unrelatedAtCap})`,
  );
  console.log(`misses among those with ≥2 at ≥4.9: ${twoMissed.length} ${twoMissed.join('; ')}`);
  console.log(`wanted:    ${histogram(wanted)}`);
  console.log(`unrelated: ${histogram(unrelated)}`);
  if (detail) console.log(lines.join('\n'));
}

function figures(all: Case[], cal: Calibration) {
  const groups = new Map<string, Judgment[]>();
  const add = (k: string, j: Judgment) => groups.set(k, [...(groups.get(k) ?? []), j]);
  const per = new Map<string, number>();
  for (const c of all) {
    const j = judge(c.q, ranked(c, cal));
    add(`${c.set} all`, j);
    add(`${c.set} ${c.q.kind}`, j);
    add('ALL all', j);
    per.set(`${c.set}\t${c.q.q}`, j.hit1);
  }
  const out: Record<string, string> = {};
  for (const [k, js] of [...groups].sort())
    out[k] =
      `${js.length} ${mean(js, (x) => x.hit1)} / ${mean(js, (x) => x.ndcg10)} / ${mean(js, (x) => x.gap)}`;
  return { out, per };
}

/** The gate: no family of any set lower in hit@1, nDCG@10 at most 0.01 lower; and the gaps. */
function compare(base: Map<string, Judgment[]>, f: Map<string, Judgment[]>) {
  let ok = true;
  const gaps: string[] = [];
  let lost = 0;
  let gained = 0;
  for (const [k, js] of base) {
    const o = f.get(k)!;
    if (mean(o, (x) => x.hit1) < mean(js, (x) => x.hit1)) ok = false;
    if (mean(o, (x) => x.ndcg10) < mean(js, (x) => x.ndcg10) - 0.01) ok = false;
    if (k.endsWith(' all')) {
      lost += js.filter((x, i) => x.hit1 > o[i]!.hit1).length;
      gained += js.filter((x, i) => x.hit1 < o[i]!.hit1).length;
      gaps.push(
        `${k.split(' ')[0]} ${(mean(o, (x) => x.gap) - mean(js, (x) => x.gap)).toFixed(3)}`,
      );
    }
  }
  return { ok, lost, gained, gaps };
}

function groups(all: Case[], cal: Calibration) {
  const g = new Map<string, Judgment[]>();
  const add = (k: string, j: Judgment) => g.set(k, [...(g.get(k) ?? []), j]);
  for (const c of all) {
    const j = judge(c.q, ranked(c, cal));
    add(`${c.set} all`, j);
    add(`${c.set} ${c.q.kind}`, j);
  }
  return g;
}

const names = process.argv.slice(2);
if (names[0] === 'grid') {
  const { cases: all, close } = await cases();
  const base = groups(all, CALIBRATION);
  const allGap = (g: Map<string, Judgment[]>) =>
    mean(
      [...g].filter(([k]) => k.endsWith(' all')).flatMap(([, js]) => js),
      (x) => x.gap,
    );
  const allHit = (g: Map<string, Judgment[]>) =>
    mean(
      [...g].filter(([k]) => k.endsWith(' all')).flatMap(([, js]) => js),
      (x) => x.hit1,
    );
  console.log(`shipped: hit@1 ${allHit(base)} gap ${allGap(base)}`);
  for (const scoreFull of [0.45, 0.5, 0.55, 0.6])
    for (const scoreZero of [0.1, 0.102, 0.104, 0.106, 0.108, 0.11, 0.115, 0.12, 0.13, 0.15])
      for (const capKnee of [1, 0.95, 0.9, 0.8, 0.7, 0.6])
        for (const [capConcept, capOpen] of [
          [0, 1],
          [0.5, 0.9],
          [0.7, 0.9],
          [0.5, 0.8],
          [0.7, 0.8],
          [0.9, 0.8],
          [0.7, 0.7],
        ]) {
          const cal = {
            ...CALIBRATION,
            scoreFull,
            scoreZero,
            capKnee,
            capConcept: capConcept!,
            capOpen: capOpen!,
          };
          const g = groups(all, cal);
          const cmp = compare(base, g);
          const lostQ = [...base]
            .filter(([k]) => k.endsWith(' all'))
            .flatMap(([k, js]) => js.flatMap((x, i) => (x.hit1 > g.get(k)![i]!.hit1 ? [k] : [])));
          console.log(
            `full ${scoreFull} zero ${scoreZero} knee ${capKnee} concept ${capConcept} open ${capOpen}: gate ${cmp.ok ? 'ok  ' : 'FAIL'} lost ${cmp.lost} gained ${cmp.gained} hit@1 ${allHit(g)} gap ${allGap(g)} | ${cmp.gaps.join(', ')} ${lostQ.join(' ')}`,
          );
        }
  await close();
  process.exit(0);
}
const { cases: all, close } = await cases();
try {
  const shipped = CALIBRATION;
  console.log('--- shipped calibration: saturation (tuning data only) ---');
  saturation(all, shipped, process.env.CAP_DETAIL === '1');
  const base = figures(all, shipped);
  for (const name of names) {
    const cal = { ...shipped, ...VARIANTS[name] };
    if (!VARIANTS[name]) throw new Error(`variant ${name}: one of ${Object.keys(VARIANTS)}`);
    console.log(`\n--- ${name} ---`);
    saturation(all, cal, false);
    const f = figures(all, cal);
    for (const k of Object.keys(base.out))
      console.log(
        `${k.padEnd(22)} ${base.out[k]!.padEnd(26)} → ${f.out[k]}${base.out[k] === f.out[k] ? '' : '  *'}`,
      );
    for (const [k, h] of f.per)
      if (h !== base.per.get(k)) {
        console.log(`  ${h ? 'gained' : 'LOST  '} ${k}`);
        const c = all.find((x) => `${x.set}\t${x.q.q}` === k)!;
        for (const cal2 of [shipped, cal])
          console.log(
            `      ${ranked(c, cal2)
              .slice(0, 4)
              .map((x) => `${x.key} ${x.similarity}`)
              .join(', ')} (want ${c.q.best.join('|')})`,
          );
      }
  }
} finally {
  await close();
}
process.exit(0);
