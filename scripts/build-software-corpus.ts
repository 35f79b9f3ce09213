/**
 * Builds the software-corpus table (assets/search/software-corpus.txt) from the npm registry's
 * package descriptions and keywords: a large corpus of software tasks described in many people's
 * words. Nothing here runs at install or run time; the service reads only the committed table.
 *
 *   npx tsx scripts/build-software-corpus.ts fetch [corpusDir] [randomCount]
 *   npx tsx scripts/build-software-corpus.ts build [corpusDir] [out]
 *
 * fetch: the names of `npm-high-impact` (popular packages) and a seeded random sample of
 * `all-the-package-names` (unpack both with `npm pack` into corpusDir, default /work/corpus), then
 * GET https://registry.npmjs.org/<name>/latest for each, at most 24 at a time, retrying 429 and 5xx
 * with backoff. Each answer (description and keywords, or the status) is appended to
 * corpusDir/npm-latest.jsonl, so a re-run fetches only what is missing.
 *
 * build: see buildTable below.
 */
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stem, tokenize } from '../src/embeddings/builtin.js';
import { lexiconConcepts } from '../src/domain/search/task-lexicon.js';

const [cmd = 'build', dirArg, third] = process.argv.slice(2);
const dir = dirArg ?? '/work/corpus';
const cache = join(dir, 'npm-latest.jsonl');

interface Row {
  name: string;
  status: number;
  description?: string;
  keywords?: string[];
}

function readCache(): Row[] {
  if (!existsSync(cache)) return [];
  const rows: Row[] = [];
  for (const line of readFileSync(cache, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      rows.push(JSON.parse(line) as Row);
    } catch {
      // a line cut by an interrupted run
    }
  }
  return rows;
}

function findPackage(prefix: string): string {
  const d = readdirSync(dir).find((f) => f.startsWith(prefix) && !f.endsWith('.tgz'));
  if (!d) throw new Error(`unpack ${prefix} into ${dir} (npm pack ${prefix}; tar xzf)`);
  return join(dir, d, 'package');
}

async function highImpactNames(): Promise<string[]> {
  const mod = (await import(join(findPackage('npm-high-impact-'), 'index.js'))) as Record<
    string,
    unknown
  >;
  const names = new Set<string>();
  for (const v of Object.values(mod)) if (Array.isArray(v)) for (const n of v) names.add(String(n));
  return [...names];
}

function randomNames(count: number): string[] {
  const all = JSON.parse(
    readFileSync(join(findPackage('all-the-package-names-'), 'names.json'), 'utf8'),
  ) as string[];
  // mulberry32, seeded: the same sample on every run
  let s = 0x5eed30;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const picked = new Set<string>();
  while (picked.size < Math.min(count, all.length))
    picked.add(all[Math.floor(rand() * all.length)]!);
  return [...picked];
}

async function fetchOne(name: string): Promise<Row> {
  const url = `https://registry.npmjs.org/${name.replace('/', '%2f')}/latest`;
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' } });
      if ((res.status === 429 || res.status >= 500) && attempt < 6) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
        continue;
      }
      if (!res.ok) {
        await res.arrayBuffer();
        return { name, status: res.status };
      }
      const j = (await res.json()) as { description?: unknown; keywords?: unknown };
      return {
        name,
        status: 200,
        description: typeof j.description === 'string' ? j.description.slice(0, 600) : undefined,
        keywords: Array.isArray(j.keywords)
          ? j.keywords.filter((k): k is string => typeof k === 'string').slice(0, 30)
          : undefined,
      };
    } catch {
      if (attempt >= 6) return { name, status: 0 };
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
    }
  }
}

async function fetchAll(randomCount: number): Promise<void> {
  const done = new Set(readCache().map((r) => r.name));
  const want = [...new Set([...(await highImpactNames()), ...randomNames(randomCount)])];
  const todo = want.filter((n) => !done.has(n));
  console.log(`${want.length} names, ${todo.length} to fetch`);
  const t0 = Date.now();
  let next = 0;
  let n = 0;
  const worker = async () => {
    while (next < todo.length) {
      const row = await fetchOne(todo[next++]!);
      appendFileSync(cache, JSON.stringify(row) + '\n');
      if (++n % 5000 === 0) console.log(`${n} fetched, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: 24 }, worker));
  console.log(`done: ${n} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** A word of the table: a plain lowercase word of 3-30 letters or digits, not a number. */
const PLAIN = /^[a-z][a-z0-9]{2,29}$/;
/** Words used in fewer descriptions than this are left out (too few to learn from). */
const MIN_DF = 10;
/** Word and concept pairs seen in fewer descriptions than this are left out. */
const MIN_PAIR = 5;
/** Per word, at most this many concepts are kept. */
const TOP_CONCEPTS = 3;
/** Concepts kept from this smoothed P(concept | word) up, and at least LIFT times their base rate. */
const MIN_P = 0.25;
const LIFT = 5;
/** Pseudo-count of the prior in P(concept | word): a word seen in few descriptions is shrunk to the base rate. */
const PRIOR = 5;

/**
 * build: one document per distinct description (with its keywords); its words by stem (the search
 * tokenizer, stop words out) and the task-lexicon concepts it names. Then, per word:
 * - `c` rows: the concepts it predicts: smoothed P(concept | word), counting only descriptions
 *   where the word is not itself part of the entry naming the concept ("bucket" of "token bucket"
 *   does not predict rate limiting), kept from MIN_P up and LIFT times the concept's base rate.
 * (Word-to-word rows, normalised PMI within a description, were measured and dropped at stop 29;
 * their builder went at stop 40.)
 */
export function buildTable(rows: Row[]): string {
  const seen = new Set<string>();
  const docs: Array<{ stems: string[]; concepts: Map<string, Set<string>> }> = [];
  for (const r of rows) {
    if (r.status !== 200 || !r.description) continue;
    const text = `${r.description}. ${(r.keywords ?? []).join(', ')}`;
    const key = text.toLowerCase().replace(/\s+/g, ' ').trim();
    if (r.description.length < 12 || seen.has(key)) continue;
    seen.add(key);
    const stems = [...new Set(tokenize(text).map(stem))].filter((s) => PLAIN.test(s)).slice(0, 60);
    if (stems.length < 2) continue;
    // concept → the stems of the words that name it here
    const concepts = new Map<string, Set<string>>();
    // contiguous phrases only, as the committed table was built (before separable phrasal verbs)
    for (const [word, named] of lexiconConcepts(text, false, false))
      for (const c of named) {
        const set = concepts.get(c) ?? new Set<string>();
        set.add(stem(word));
        concepts.set(c, set);
      }
    docs.push({ stems, concepts });
  }
  const N = docs.length;
  const df = new Map<string, number>();
  const cf = new Map<string, number>();
  for (const d of docs) {
    for (const s of d.stems) df.set(s, (df.get(s) ?? 0) + 1);
    for (const c of d.concepts.keys()) cf.set(c, (cf.get(c) ?? 0) + 1);
  }
  const vocab = [...df]
    .filter(([, n]) => n >= MIN_DF)
    .map(([s]) => s)
    .sort();
  const inVocab = new Set(vocab);
  const V = vocab.length;
  const wc = new Map<string, number>();
  for (const d of docs) {
    for (const s of d.stems) {
      if (!inVocab.has(s)) continue;
      for (const [c, by] of d.concepts) {
        if (by.has(s)) continue;
        const k = `${s} ${c}`;
        wc.set(k, (wc.get(k) ?? 0) + 1);
      }
    }
  }
  const predicts = new Map<string, Array<[string, number]>>();
  for (const [k, n] of wc) {
    if (n < MIN_PAIR) continue;
    const [s, c] = k.split(' ') as [string, string];
    const base = cf.get(c)! / N;
    const p = (n + PRIOR * base) / (df.get(s)! + PRIOR);
    if (p < MIN_P || p < LIFT * base) continue;
    const list = predicts.get(s) ?? [];
    list.push([c, p]);
    predicts.set(s, list);
  }
  const fmt = (list: Array<[string, number]>, top: number) =>
    list
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, top)
      .map(([x, v]) => `${x.replace(/^t:/, '')}:${v.toFixed(2)}`)
      .join(' ');
  const lines = [
    '# Software-corpus associations, built by scripts/build-software-corpus.ts from the npm',
    `# registry's package descriptions and keywords (${N} distinct descriptions). Read by`,
    '# src/domain/search/software-corpus.ts. Per word stem: `c stem concept:P(concept|word) ...`',
    '# (the task-lexicon concepts its descriptions name). Regenerate, do not edit.',
  ];
  for (const s of vocab) {
    const cs = predicts.get(s);
    if (cs) lines.push(`c ${s} ${fmt(cs, TOP_CONCEPTS)}`);
  }
  console.log(`${N} descriptions, ${V} words, ${predicts.size} with concepts`);
  return lines.join('\n') + '\n';
}

if (cmd === 'fetch') await fetchAll(Number(third ?? 150_000));
else if (cmd === 'build') {
  const out = third ?? new URL('../assets/search/software-corpus.txt', import.meta.url).pathname;
  writeFileSync(out, buildTable(readCache()));
} else throw new Error('usage: build-software-corpus.ts fetch|build [corpusDir] [n|out]');
