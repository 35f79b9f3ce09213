import { readFileSync } from 'node:fs';

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
