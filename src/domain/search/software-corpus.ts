import { readFileSync } from 'node:fs';

/**
 * What the npm registry's package descriptions teach about software words (issue 30): per word
 * stem, the task-lexicon concepts its descriptions name (`c` rows: P(concept | word)). Built by
 * scripts/build-software-corpus.ts, committed in `assets/search/software-corpus.txt`, read once per
 * process on first use. (Word-to-word rows, `w`, were measured and dropped with their ranking code
 * at stop 29; their builder and reader went at stop 40: the format is `c` rows only.)
 */
export const SOFTWARE_CORPUS_FILE = new URL(
  '../../../assets/search/software-corpus.txt',
  import.meta.url,
);

export interface SoftwareCorpus {
  /** stem → [concept (as lexiconConcepts names it, "t:…"), P(concept | word)], strongest first */
  concepts: Map<string, Array<[string, number]>>;
}

/** Parses the table's text format; a malformed line throws with its number. */
export function parseSoftwareCorpus(text: string): SoftwareCorpus {
  const concepts = new Map<string, Array<[string, number]>>();
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const [kind, key, ...rest] = line.split(' ');
    if (kind !== 'c' || !key || rest.length === 0)
      throw new Error(`software corpus line ${i + 1}: expected "c stem concept:P ..."`);
    concepts.set(
      key,
      rest.map((pair) => {
        const at = pair.lastIndexOf(':');
        const weight = Number(pair.slice(at + 1));
        if (at < 1 || !Number.isFinite(weight))
          throw new Error(`software corpus line ${i + 1}: bad pair ${pair}`);
        return [`t:${pair.slice(0, at)}`, weight];
      }),
    );
  });
  return { concepts };
}

let shared: SoftwareCorpus | undefined;
/** The shipped table, read once per process on first use. */
export function softwareCorpus(): SoftwareCorpus {
  return (shared ??= parseSoftwareCorpus(readFileSync(SOFTWARE_CORPUS_FILE, 'utf8')));
}

/**
 * The buyer corpus (issue 30): the same `c` rows learned from buyer queries labelled with the
 * concept each means (scripts/build-buyer-corpus.ts, scripts/corpus/buyer-queries.txt): what a buyer
 * writes for a task, where the npm table holds what a package's author writes.
 */
export const BUYER_CORPUS_FILE = new URL(
  '../../../assets/search/buyer-corpus.txt',
  import.meta.url,
);

let buyers: SoftwareCorpus | undefined;
/** The shipped buyer table, read once per process on first use. */
export function buyerCorpus(): SoftwareCorpus {
  return (buyers ??= parseSoftwareCorpus(readFileSync(BUYER_CORPUS_FILE, 'utf8')));
}

/**
 * Stop 50: the concepts each task is asked for in (`s task setting ...` rows, learned from the
 * buyer queries by scripts/build-buyer-corpus.ts settings): two-factor sign-in is asked for at a
 * login and on a phone, an SMS gateway for phones.
 */
export const CONCEPT_SETTINGS_FILE = new URL(
  '../../../assets/search/concept-settings.txt',
  import.meta.url,
);

/** setting concept → the task concepts it is a setting of (both as lexiconConcepts names them, "t:…") */
export type ConceptSettings = Map<string, Set<string>>;

/** Parses the settings table's text format; a malformed line throws with its number. */
export function parseConceptSettings(text: string): ConceptSettings {
  const settings: ConceptSettings = new Map();
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const [kind, task, ...of] = line.split(' ');
    if (kind !== 's' || !task || of.length === 0 || of.some((b) => b === ''))
      throw new Error(`concept settings line ${i + 1}: expected "s task setting ..."`);
    for (const b of of) {
      const tasks = settings.get(`t:${b}`) ?? new Set<string>();
      settings.set(`t:${b}`, tasks.add(`t:${task}`));
    }
  });
  return settings;
}

let settings: ConceptSettings | undefined;
/** The shipped settings table, read once per process on first use. */
export function conceptSettings(): ConceptSettings {
  return (settings ??= parseConceptSettings(readFileSync(CONCEPT_SETTINGS_FILE, 'utf8')));
}

/**
 * Stop 51: how often buyers who name a concept ask for it as their task rather than as its context
 * (`t concept share` rows under a `p overall` row, learned from the buyer queries by
 * scripts/build-buyer-corpus.ts tasks): a phone (mobile push) is mostly where an SMS or a
 * two-factor task happens, an IP locator is asked for as itself.
 */
export const CONCEPT_TASKS_FILE = new URL(
  '../../../assets/search/concept-tasks.txt',
  import.meta.url,
);

/** concept ("t:…", as lexiconConcepts names it) → its task share; `overall` for a concept not listed */
export interface ConceptTasks {
  overall: number;
  shares: Map<string, number>;
}

/** Parses the task-share table's text format; a malformed line throws with its number. */
export function parseConceptTasks(text: string): ConceptTasks {
  let overall: number | undefined;
  const shares = new Map<string, number>();
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const parts = line.split(' ');
    const share = Number(parts.at(-1));
    const ok = Number.isFinite(share) && share > 0 && share <= 1;
    if (parts[0] === 'p' && parts.length === 2 && ok) overall = share;
    else if (parts[0] === 't' && parts.length === 3 && parts[1] && ok)
      shares.set(`t:${parts[1]}`, share);
    else throw new Error(`concept tasks line ${i + 1}: expected "p share" or "t concept share"`);
  });
  if (overall === undefined) throw new Error('concept tasks: no "p share" line');
  return { overall, shares };
}

let tasks: ConceptTasks | undefined;
/** The shipped task-share table, read once per process on first use. */
export function conceptTasks(): ConceptTasks {
  return (tasks ??= parseConceptTasks(readFileSync(CONCEPT_TASKS_FILE, 'utf8')));
}
