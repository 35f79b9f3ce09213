import { readFileSync } from 'node:fs';
import { isStopword, stem, words, wordsWithBreaks } from '../../embeddings/builtin.js';

/**
 * The task-concept lexicon (issue 30): what a buyer says and what a seller writes for the same
 * software task ("hammering my api" ~ "rate limiter", "gets cheaper" ~ "price drop"). The words are
 * data, in `assets/search/task-lexicon.txt` (its header describes the format), read once per process
 * on first use like the word vectors; soft-match.ts matches them.
 */
export const TASK_LEXICON_FILE = new URL(
  '../../../assets/search/task-lexicon.txt',
  import.meta.url,
);

export interface TaskLexicon {
  /** concept name → its entries (words and short phrases), in file order */
  concepts: Map<string, string[]>;
  /**
   * Concepts that name what is done to something rather than what it is done to: "parse" and
   * "validate" say little about the task until their object is known ("python csv parser" is about
   * CSV, not about any parser). A query word naming only such concepts weighs `ACTION_WEIGHT`.
   */
  actions: Set<string>;
}

export const ACTION_WEIGHT = 0.5;

const HEADER = /^\[([a-z0-9_]+)( action)?\]$/;

/** Parses the lexicon's text format; a malformed line throws with its number. */
export function parseTaskLexicon(text: string): TaskLexicon {
  const concepts = new Map<string, string[]>();
  const actions = new Set<string>();
  let current: string[] | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const header = HEADER.exec(line);
    if (header) {
      const name = header[1]!;
      if (concepts.has(name)) throw new Error(`task lexicon line ${i + 1}: ${name} repeated`);
      current = [];
      concepts.set(name, current);
      if (header[2]) actions.add(name);
      return;
    }
    if (!current || line.startsWith('['))
      throw new Error(`task lexicon line ${i + 1}: entries before a [concept], or a bad header`);
    for (const entry of line.split(','))
      if (entry.trim() !== '') current.push(entry.trim().toLowerCase());
  });
  return { concepts, actions };
}

let shared: TaskLexicon | undefined;
/** The shipped lexicon, read once per process on first use. */
export function taskLexicon(): TaskLexicon {
  return (shared ??= parseTaskLexicon(readFileSync(TASK_LEXICON_FILE, 'utf8')));
}

/**
 * The lexicon's entries by their first stem: [concept, the entry's stems, whether a small word
 * gives the entry its sense ("log in", "try again")]; built on first use.
 */
let lexiconIndex: Map<string, Array<[string, string[], boolean]>> | undefined;
let actionConcepts: Set<string> | undefined;
function lexicon(): Map<string, Array<[string, string[], boolean]>> {
  if (lexiconIndex) return lexiconIndex;
  const { concepts, actions } = taskLexicon();
  const index = new Map<string, Array<[string, string[], boolean]>>();
  for (const [concept, entries] of concepts)
    for (const entry of entries) {
      const stems = lexiconStems(entry);
      if (stems.length === 0) continue;
      const list = index.get(stems[0]!) ?? [];
      list.push([`t:${concept}`, stems, stems.length > 1 && words(entry).some(isStopword)]);
      index.set(stems[0]!, list);
    }
  actionConcepts = new Set([...actions].map((c) => `t:${c}`));
  return (lexiconIndex = index);
}

/** Whether a word's lexicon concepts are all actions (`[concept action]` in the lexicon file). */
export function isAction(concepts: readonly string[] | undefined): boolean {
  lexicon();
  return !!concepts?.length && concepts.every((c) => actionConcepts!.has(c));
}

/**
 * A text as the lexicon reads it: its words, lowercase and stemmed, stop words kept ("log in" is
 * not "log", "try again" not "try").
 */
export function lexiconStems(text: string): string[] {
  return words(text).map((w) => stem(w.toLowerCase()));
}

/**
 * The lexicon's task concepts a text names, by the words that name them: an entry matches where
 * its words stand adjacent, and every word it covers names its concept. A word takes the sense its
 * phrase gives it: in a listing, a one-word entry standing within a longer entry that a small word
 * shapes names only the longer one's concept ("users logging in" is signing in, not logging; "try
 * again" is retrying); in a query (`query`), any entry within a longer one of another concept
 * gives way to it, since the buyer's phrase names the task they want ("social login" is not any
 * sign-in, "web push notifications" not any notification), where a listing's phrase names what it
 * is and still mentions the broader task. `separable`: whether a phrasal verb with its object between
 * its words names the entry too (`separated`; the corpus tables were built without it).
 */
export function lexiconConcepts(
  text: string,
  query = false,
  separable = true,
): Map<string, string[]> {
  const split = wordsWithBreaks(text);
  const ws = split.words.map((w) => w.toLowerCase());
  const stems = ws.map(stem);
  const found: Array<{
    at: number;
    end: number;
    cover: number[];
    concept: string;
    phrasal: boolean;
  }> = [];
  stems.forEach((s, i) => {
    for (const [concept, entry, phrasal] of lexicon().get(s) ?? []) {
      if (entry.some((e, k) => stems[i + k] !== e)) {
        const j = separable ? separated(entry, ws, stems, split.breaks, i) : undefined;
        if (j !== undefined) found.push({ at: i, end: j + 1, cover: [i, j], concept, phrasal });
        continue;
      }
      const cover = entry.map((_, k) => i + k);
      found.push({ at: i, end: i + entry.length, cover, concept, phrasal });
    }
  });
  // the entries that can give a word its sense: in a listing, those a small word shapes
  const senses = found.filter((o) => o.cover.length > 1 && (query || o.phrasal));
  const within = (m: (typeof found)[number]) =>
    senses.some(
      (o) =>
        o.concept !== m.concept &&
        o.cover.length > m.cover.length &&
        m.cover.every((k) => o.cover.includes(k)) &&
        (query || m.cover.length === 1),
    );
  const out = new Map<string, string[]>();
  for (const m of found) {
    if (within(m)) continue;
    for (const k of m.cover) {
      const named = out.get(ws[k]!) ?? [];
      if (!named.includes(m.concept)) named.push(m.concept);
      out.set(ws[k]!, named);
    }
  }
  return out;
}

/**
 * The one-word entries of the task concepts a query names, for the candidate stage: a listing whose
 * title names a concept of the query in a word the query does not use ("kick out people posting
 * junk" and the Discord moderation bot) is otherwise reached only through a weak vector likeness.
 * Concepts that name an action ("parse", "validate") are left out: their object decides, and their
 * words name a step of many tasks. Multi-word entries are left out too: their words alone name
 * other things ("token" of "token bucket").
 */
export function conceptEntryWords(text: string): string[] {
  const { concepts } = taskLexicon();
  const named = new Set([...lexiconConcepts(text, true).values()].flat());
  const out = new Set<string>();
  for (const c of named) {
    if (isAction([c])) continue;
    for (const entry of concepts.get(c.slice(2)) ?? [])
      if (words(entry).length === 1) out.add(entry);
  }
  return [...out];
}

/**
 * English separable phrasal verbs: a verb and its particle with the verb's object between them
 * ("log users in", "sign people up", "try the same call again", "back my files up") name what the
 * contiguous entry names ("log in", "sign up", "try again", "back up"). An entry of two words whose
 * second is a particle matches with one to three words between, within one clause, none of them a
 * word that starts another clause or phrase. A particle that is also a preposition ("in", "on",
 * "up" ...) must end the clause or be followed by such a word ("log users in with a link"), since
 * followed by a noun phrase it is a preposition ("log errors in the database" is not signing in);
 * "again", "back" and "away" are never prepositions. Returns the particle's position.
 */
const PARTICLES = new Set([
  'in',
  'out',
  'up',
  'down',
  'off',
  'on',
  'over',
  'again',
  'back',
  'away',
]);
const ADVERB_PARTICLES = new Set(['again', 'back', 'away']);
/** Words that end the verb's object: conjunctions, the prepositions that start another phrase. */
const JOINS = new Set([
  'and',
  'or',
  'but',
  'so',
  'then',
  'when',
  'whenever',
  'while',
  'if',
  'once',
  'before',
  'after',
  'with',
  'without',
  'using',
  'via',
  'to',
  'by',
  'from',
  'for',
  'again',
  'automatically',
  'because',
  'until',
  'unless',
  'that',
  'which',
  'who',
  'of',
]);
const SEPARATED_MAX = 3;
function separated(
  entry: string[],
  ws: string[],
  stems: string[],
  breaks: boolean[],
  i: number,
): number | undefined {
  if (entry.length !== 2 || !PARTICLES.has(entry[1]!) || isStopword(entry[0]!)) return undefined;
  for (let j = i + 2; j <= i + 1 + SEPARATED_MAX && j < ws.length; j++) {
    if (breaks[j - 2]) return undefined;
    const between = ws[j - 1]!;
    if (JOINS.has(between) || PARTICLES.has(between)) return undefined;
    if (stems[j] !== entry[1]) continue;
    if (breaks[j - 1]) return undefined;
    if (ADVERB_PARTICLES.has(ws[j]!) || breaks[j] || j + 1 === ws.length || JOINS.has(ws[j + 1]!))
      return j;
    return undefined;
  }
  return undefined;
}
