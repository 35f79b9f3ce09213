import { conceptsOf, stem, tokenize } from '../../embeddings/builtin.js';
import type { WordVectors } from '../../embeddings/word-vectors.js';
import { isStackWord } from './stacks.js';
import { buyerCorpus, conceptSettings, conceptTasks, softwareCorpus } from './software-corpus.js';
import { ACTION_WEIGHT, isAction, lexiconConcepts } from './task-lexicon.js';
import { buyerNeighbours, neighbourConcepts, neighbourStems } from './buyer-neighbours.js';

/**
 * Word pairs count from this hubness-corrected similarity (CSLS, word-vectors.ts) up, their credit
 * rising linearly to 1 at SOFT_MATCH_FULL (both chosen on the tuning half of the relevance set,
 * `npm run bench -- relevance_tune`; a good synonym pair sits near CSLS 0, so a lower "full"
 * credits near-synonyms in full, which the tuning half did not reward over the default).
 */
export const SOFT_MATCH_FLOOR = -0.8;
export const SOFT_MATCH_FULL = 1;
/** Credit for a word that shares a concept group with a listing word (builtin.ts: "throttle" ~ "limiter"). */
export const CONCEPT_MATCH = 0.8;
/**
 * Credit for a query word that names a task concept of the lexicon (task-lexicon.ts) that the
 * listing names in other words ("hammering" ~ "rate limiter", "cheaper" ~ "price drop").
 */
export const LEXICON_MATCH = 0.8;
/**
 * What the npm registry's descriptions teach (software-corpus.ts), as credits in word matching:
 * `concept` × P(concept | word) for a query word that names no concept of the lexicon where the
 * listing names a concept the word predicts (at most LEXICON_MATCH: "spam" ~ an e-mail listing,
 * "translator" ~ an i18n one), chosen by `BENCH_TUNE_GRID=corpus npm run bench -- relevance_tune`
 * on the tuning halves (docs/search-meaning.md).
 */
export const CORPUS_CREDIT: CorpusCredit = {
  concept: 3,
  buyer: 24,
  setting: 1,
  task: 0.25,
  neighbours: 2,
};
/**
 * `buyer`: as `concept`, from the buyer corpus (buyer queries labelled with their concept): 24,
 * so that every prediction it keeps (P from 0.05) credits as a lexicon match, chosen by
 * `BENCH_TUNE_GRID=buyer` on the tuning halves (both rounds' table; 12 ranks the same, nDCG@10
 * 0.002 lower). Word-to-word credits from npm descriptions and the buyer table as a query-level
 * concept guess were measured and dropped (docs/search-meaning.md, Tried and dropped).
 */
export interface CorpusCredit {
  concept: number;
  buyer: number;
  /**
   * Stop 50: credit of a concept the query names as the setting of another it names (the buyer
   * queries' settings table: "at login", "on their phones" for two-factor sign-in), where the
   * listing's title names that task and the query explains its whole title: the concept signal
   * counts the setting as named (× this), the meaning signal credits its words as a lexicon match
   * (× this); 0 turns it off.
   */
  setting: number;
  /**
   * Stop 51: in the concept signal, each concept the query names weighs × its task share^this (the
   * share of buyer queries naming it that ask for it as their task, assets/search/concept-tasks.txt):
   * "the number their phone shows" names mobile push as the place of a two-factor task, so a query
   * naming both counts two-factor for more of the coverage. Only the balance between a query's
   * concepts moves (one concept alone keeps its coverage); 0 turns it off.
   */
  task: number;
  /**
   * Stop 54: credit per share of a concept among the query's nearest labelled buyer queries
   * (buyer-neighbours.ts: the whole query, where the buyer table reads word by word), given in word
   * matching to each query word that names no concept, as the buyer table's credit is (at most
   * `lexiconMatch`): "users get in by clicking something we mail them" is a passwordless sign-in
   * (share 0.31) more than the e-mail its one named word says. 2, chosen on the tuning halves
   * (1, 2 and 3 tried; docs/search-meaning.md "Stop 54"); 0 turns it off.
   */
  neighbours: number;
}

/**
 * How well a listing's words cover a query's words, 0-1, with word meaning: each query word scores
 * 1 when the listing has it (or the same stem); else the credit of its closest listing word by
 * hubness-corrected word-vector similarity ("spammers" ~ "spam", but not "talk" ~ "go"), or
 * CONCEPT_MATCH when both are in one of the embedder's concept groups; else 0. Words are weighted by
 * SIF (rare words count, "files" and "simple" hardly) and, when given, by their IDF in the catalogue
 * ("csv" counts more than "parse" where many listings parse something). Names of stacks ("go", "express", "rust")
 * are compared by identity only: their word vectors are those of the English words. A greedy
 * word-alignment score in the manner of BERTScore, over static word vectors; cheap enough to run on
 * the few fused candidates.
 */
export function softMatch(
  wv: WordVectors,
  queryTokens: string[],
  docTokens: string[],
  floor = SOFT_MATCH_FLOOR,
  idf?: ReadonlyMap<string, number>,
): number {
  return softMatchWords(wv, prepareQuery(wv, queryTokens, floor, idf), wordsOf(wv, [docTokens]));
}

/** What word matching needs of a listing, computed once per listing text (see `listingWords`). */
export interface ListingWords {
  stems: Set<string>;
  concepts: Set<string>;
  /** the task-lexicon concepts its title names: what the listing is, not a feature it mentions */
  titleConcepts: Set<string>;
  /** the task concepts of each title word that names any, one list per word */
  titleUnits: string[][];
  /** stems and word-vector rows of its title and tech stack (the rest is its description) */
  titleStems: Set<string>;
  titleIds: Set<number>;
  /** word-vector rows of its distinct words, stack names left out (compared by identity only) */
  ids: number[];
  /** adjacent word pairs (by stem) within each of its texts */
  pairs: Set<string>;
  /** closest-word credits of the query words matched so far (`closestCredits`) */
  closest?: {
    floor: number;
    full: number;
    byWord: Map<number, { title: number; body: number }>;
  };
}

function wordsOf(
  wv: WordVectors,
  texts: string[][],
  pairTexts = texts,
  raw = pairTexts.map((t) => t.join(' ')),
  head = texts[0] ?? [],
): ListingWords {
  const all = texts.flat();
  const ids: number[] = [];
  for (const t of new Set(all)) {
    const id = isStackWord(t) ? undefined : wv.id(t);
    if (id !== undefined) ids.push(id);
  }
  const pairs = new Set<string>();
  for (const tokens of pairTexts) {
    const d = tokens.map(stem);
    for (let i = 0; i + 1 < d.length; i++) pairs.add(`${d[i]} ${d[i + 1]}`);
  }
  return {
    stems: new Set(all.map(stem)),
    concepts: new Set([
      ...all.flatMap((t) => conceptsOf(t)),
      ...raw.flatMap((t) => [...lexiconConcepts(t).values()].flat()),
    ]),
    titleConcepts: new Set(raw.length > 0 ? [...lexiconConcepts(raw[0]!).values()].flat() : []),
    titleUnits:
      raw.length > 0 ? [...lexiconConcepts(raw[0]!).values()].filter((u) => u.length > 0) : [],
    titleStems: new Set(head.map(stem)),
    titleIds: new Set(head.flatMap((t) => (isStackWord(t) ? [] : (wv.id(t) ?? [])))),
    ids,
    pairs,
  };
}

/** Bounded: a few kB per listing; the candidates of popular queries repeat. */
const LISTING_CACHE_SIZE = 2_000;
interface KeptListing {
  title: string;
  techStack: string;
  description: string;
  promptSummary: string;
  words: ListingWords;
}
const listingCache = new Map<string, KeptListing>();

/**
 * The words of a listing (title, tech stack, description, prompt summary), cached per process by
 * its id (when given) or its text, and used while its text is the same: a listing is ranked for
 * many queries, and tokenising it is most of the ranking's work. Phrases are read within the
 * title, the description and the summary, not the stack list.
 */
export function listingWords(
  wv: WordVectors,
  l: {
    id?: string;
    title: string;
    techStack: string;
    description: string;
    promptSummary?: string | null;
  },
): ListingWords {
  const summary = l.promptSummary ?? '';
  const key = l.id ?? `${l.title}\u0000${l.techStack}\u0000${l.description}\u0000${summary}`;
  const kept = listingCache.get(key);
  if (
    kept &&
    kept.title === l.title &&
    kept.techStack === l.techStack &&
    kept.description === l.description &&
    kept.promptSummary === summary
  )
    return kept.words;
  const raw = [l.title, l.description, summary];
  const texts = raw.map(tokenize);
  const stack = tokenize(l.techStack);
  const words = wordsOf(wv, [...texts, stack], texts, raw, [...texts[0]!, ...stack]);
  if (!kept && listingCache.size >= LISTING_CACHE_SIZE)
    listingCache.delete(listingCache.keys().next().value!);
  listingCache.set(key, {
    title: l.title,
    techStack: l.techStack,
    description: l.description,
    promptSummary: summary,
    words,
  });
  return words;
}

/** A query's words prepared once for matching against many listings. */
export interface PreparedQuery {
  floor: number;
  full: number;
  /** credit of a task concept shared through the lexicon */
  lexiconMatch: number;
  corpus: CorpusCredit;
  words: Array<{
    stem: string;
    concepts: readonly string[];
    /** the lexicon's task concepts this word names (alone or in a phrase of the query) */
    tasks: readonly string[];
    /**
     * concepts the word predicts in the software and buyer corpora and the query's nearest buyer
     * queries predict (only when it names none itself), with the credit of each (the corpus's
     * weight × P, at most `lexiconMatch`)
     */
    predicts: ReadonlyArray<[string, number]>;
    id: number | undefined;
    weight: number;
  }>;
  total: number;
  /** the task concepts the query names with their weights (`conceptCoverage`, filled once) */
  conceptWeights?: Map<string, number>;
  /** the task concepts the query names or predicts (`titleExplained`, filled once) */
  explains?: Set<string>;
  /**
   * each concept the query names as the setting of another it names → those tasks
   * (`CorpusCredit.setting`; empty when it is 0)
   */
  settings: Map<string, string[]>;
}

export function prepareQuery(
  wv: WordVectors,
  queryTokens: string[],
  floor = SOFT_MATCH_FLOOR,
  idf?: ReadonlyMap<string, number>,
  full = SOFT_MATCH_FULL,
  lexiconMatch = LEXICON_MATCH,
  text = queryTokens.join(' '),
  corpus = CORPUS_CREDIT,
): PreparedQuery {
  // a word the catalogue lacks weighs as much as its rarest word
  const maxIdf = idf && idf.size > 0 ? Math.max(...idf.values()) : 1;
  const named = lexiconConcepts(text, true);
  const table = corpus.concept > 0 ? softwareCorpus() : undefined;
  const buyers = corpus.buyer > 0 ? buyerCorpus() : undefined;
  const predicted = (w: string, from: typeof table, credit: number): Array<[string, number]> =>
    from && credit > 0 && !named.has(w) && !isStackWord(w)
      ? (from.concepts.get(stem(w)) ?? []).map(([c, p]) => [c, Math.min(lexiconMatch, credit * p)])
      : [];
  const neighbours: Array<[string, number]> =
    corpus.neighbours > 0
      ? [...neighbourConcepts(buyerNeighbours(), neighbourStems(text))].map(([c, share]) => [
          c,
          Math.min(lexiconMatch, corpus.neighbours * share),
        ])
      : [];
  const words = [...new Set(queryTokens)].map((w) => ({
    stem: stem(w),
    predicts: [
      ...predicted(w, table, corpus.concept),
      ...predicted(w, buyers, corpus.buyer),
      ...(named.has(w) || isStackWord(w) ? [] : neighbours),
    ],
    // a stack name is compared by identity only, not by its group ("react" is not "dashboard")
    concepts: isStackWord(w) ? [] : conceptsOf(w),
    tasks: [...(named.get(w) ?? [])],
    id: isStackWord(w) ? undefined : wv.id(w),
    // SIF (unknown words are rare ones: full weight) × the word's IDF in this catalogue
    weight:
      (wv.weight(w) ?? 1) *
      (idf ? (idf.get(w) ?? maxIdf) : 1) *
      (isAction(named.get(w)) ? ACTION_WEIGHT : 1),
  }));
  return {
    floor,
    full,
    lexiconMatch,
    corpus,
    settings: corpus.setting > 0 ? settingsNamed(named) : new Map<string, string[]>(),
    words,
    total: words.reduce((s, w) => s + w.weight, 0),
  };
}

/** Of the concepts a query names, each that is the setting of another it names → those tasks. */
function settingsNamed(named: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const all = new Set([...named.values()].flat());
  const table = conceptSettings();
  const out = new Map<string, string[]>();
  for (const b of all) {
    const tasks = [...(table.get(b) ?? [])].filter((a) => all.has(a));
    if (tasks.length > 0) out.set(b, tasks);
  }
  return out;
}

/**
 * Whether the listing is the task of which the query names one of `concepts` as the setting: its
 * title names that task, and the query explains every task word of its title (a job board
 * harvester is a scraper, and "online stores", a scraper's setting, is not its own).
 */
function inSetting(q: PreparedQuery, doc: ListingWords, concepts: readonly string[]): boolean {
  return (
    q.settings.size > 0 &&
    concepts.some((c) => q.settings.get(c)?.some((a) => doc.titleConcepts.has(a))) &&
    titleExplained(q, doc) === 1
  );
}

/**
 * softMatch of a prepared query over a listing's analysed words. `body` is the credit, relative to
 * the same match in the title or tech stack, of a match found only in the description or summary
 * (BM25F's field weighting, for meaning: the title says what the listing is).
 */
export function softMatchWords(
  wv: WordVectors,
  q: PreparedQuery,
  doc: ListingWords,
  body = 1,
): number {
  let num = 0;
  for (const w of q.words) {
    if (doc.titleStems.has(w.stem)) {
      num += w.weight;
      continue;
    }
    if (doc.stems.has(w.stem)) {
      num +=
        w.weight *
        Math.max(body, w.tasks.some((c) => doc.titleConcepts.has(c)) ? q.lexiconMatch : 0);
      continue;
    }
    // a word that names a task concept of the lexicon is judged by it, not by the embedder's
    // broader groups ("csv" is not "json", "resize" is not any "image")
    let best =
      w.tasks.length > 0
        ? w.tasks.some((c) => doc.titleConcepts.has(c))
          ? q.lexiconMatch
          : Math.max(
              inSetting(q, doc, w.tasks) ? q.lexiconMatch * q.corpus.setting : 0,
              w.tasks.some((c) => doc.concepts.has(c)) ? q.lexiconMatch * body : 0,
            )
        : w.concepts.some((c) => doc.concepts.has(c))
          ? CONCEPT_MATCH * body
          : 0;
    if (w.id !== undefined) {
      const closest = closestCredits(wv, q, w.id, doc);
      // (the best of body × each credit is body × the best credit: rounding is monotonic)
      const inBody = body < 1 && closest.body > -Infinity ? closest.body * body : closest.body;
      best = Math.max(best, closest.title, inBody);
    }
    for (const [c, credit] of w.predicts) {
      if (doc.titleConcepts.has(c)) best = Math.max(best, credit);
      else if (doc.concepts.has(c)) best = Math.max(best, credit * body);
    }
    num += w.weight * best;
  }
  return q.total > 0 ? num / q.total : 0;
}

/**
 * Query words whose closest-word credits a listing keeps (per floor and full), at most: with
 * LISTING_CACHE_SIZE listings, about 9 MB in all at worst (the demo: 36 listings).
 */
const CLOSEST_PER_LISTING = 64;

/**
 * The credit of a query word's closest word among a listing's title and stack words (`title`) and
 * among its other words (`body`), -Infinity where there is none: kept with the listing's words,
 * since its candidates recur across searches while every query compares each of its words with
 * every word of ~60 listings.
 */
function closestCredits(
  wv: WordVectors,
  q: PreparedQuery,
  id: number,
  doc: ListingWords,
): { title: number; body: number } {
  let kept = doc.closest;
  if (!kept || kept.floor !== q.floor || kept.full !== q.full)
    kept = doc.closest = { floor: q.floor, full: q.full, byWord: new Map() };
  let found = kept.byWord.get(id);
  if (!found) {
    // full: start again (only when a new word must be kept, so a kept word is still found)
    if (kept.byWord.size >= CLOSEST_PER_LISTING) kept.byWord.clear();
    found = { title: -Infinity, body: -Infinity };
    for (const d of doc.ids) {
      const credit = Math.min(1, (wv.csls(id, d) - q.floor) / (q.full - q.floor));
      if (doc.titleIds.has(d)) {
        if (credit > found.title) found.title = credit;
      } else if (credit > found.body) found.body = credit;
    }
    kept.byWord.set(id, found);
  }
  return found;
}

/**
 * Share (0-1) of the task concepts the query names (assets/search/task-lexicon.txt) that the listing names too,
 * each concept weighing as its heaviest query word; undefined when the query names none. With
 * `explained` > 0 the match is made symmetric in part: the share is multiplied by
 * 1 − explained + explained × the share of the listing's title task words the query explains
 * (`titleExplained`), so a listing whose title is about X and Y ranks below one about X alone for
 * a query about X, while a query describing every task of the title keeps the share in full.
 */
export function conceptCoverage(
  q: PreparedQuery,
  doc: ListingWords,
  bodyCredit = 1,
  explained = 0,
): number | undefined {
  const weights = (q.conceptWeights ??= conceptWeights(q));
  if (weights.size === 0) return undefined;
  let num = 0;
  let total = 0;
  for (const [c, weight] of weights) {
    total += weight;
    if (doc.titleConcepts.has(c)) num += weight;
    else
      num +=
        weight *
        Math.max(
          inSetting(q, doc, [c]) ? q.corpus.setting : 0,
          doc.concepts.has(c) ? bodyCredit : 0,
        );
  }
  if (total <= 0) return undefined;
  const coverage = num / total;
  if (explained <= 0 || coverage === 0 || doc.titleUnits.length === 0) return coverage;
  return coverage * (1 - explained + explained * titleExplained(q, doc));
}

/**
 * Share of the title's words naming task concepts that the query explains: a word counts when one
 * of its concepts is named by the query or predicted by a query word (the npm and buyer tables). A
 * title word naming several concepts ("push" of "web push notification") counts once.
 */
function titleExplained(q: PreparedQuery, doc: ListingWords): number {
  const explains = (q.explains ??= explainedConcepts(q));
  let hit = 0;
  for (const unit of doc.titleUnits) if (unit.some((c) => explains.has(c))) hit += 1;
  return hit / doc.titleUnits.length;
}

/** The task concepts the query names or its words predict. */
function explainedConcepts(q: PreparedQuery): Set<string> {
  const out = new Set<string>();
  for (const w of q.words) {
    for (const c of w.tasks) out.add(c);
    for (const [c] of w.predicts) out.add(c);
  }
  return out;
}

/**
 * Each task concept the query names, weighing as its heaviest query word × its task share^`task`
 * (`CorpusCredit.task`): a concept buyers mostly name as the context of another task counts less
 * against the concepts they name as the task itself.
 */
function conceptWeights(q: PreparedQuery): Map<string, number> {
  const weights = new Map<string, number>();
  for (const w of q.words)
    for (const c of w.tasks) weights.set(c, Math.max(weights.get(c) ?? 0, w.weight));
  if (q.corpus.task > 0) {
    const { overall, shares } = conceptTasks();
    for (const [c, weight] of weights)
      weights.set(c, weight * Math.pow(shares.get(c) ?? overall, q.corpus.task));
  }
  return weights;
}

/**
 * Share (0-1) of the query's adjacent word pairs (by stem) that also stand adjacent in one of the
 * listing's texts; 0 for a one-word query.
 */
export function phraseMatch(queryTokens: string[], docTexts: string[]): number {
  return phraseMatchWords(queryTokens, wordsOf(NO_VECTORS, docTexts.map(tokenize)));
}

export function phraseMatchWords(queryTokens: string[], doc: ListingWords): number {
  return phraseMatchPairs(queryPairs(queryTokens), doc);
}

/** A query's adjacent word pairs by stem (for `phraseMatchPairs`, once per query). */
export function queryPairs(queryTokens: string[]): Set<string> {
  const q = queryTokens.map(stem);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < q.length; i++) if (q[i] !== q[i + 1]) pairs.add(`${q[i]} ${q[i + 1]}`);
  return pairs;
}

/** phraseMatchWords over the query's pairs (`queryPairs`). */
export function phraseMatchPairs(pairs: ReadonlySet<string>, doc: ListingWords): number {
  if (pairs.size === 0) return 0;
  let found = 0;
  for (const p of pairs) if (doc.pairs.has(p)) found++;
  return found / pairs.size;
}

const NO_VECTORS = { id: () => undefined } as unknown as WordVectors;
