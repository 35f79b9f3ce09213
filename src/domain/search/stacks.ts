import { isStopword, REWRITTEN_WORDS, words, wordsWithBreaks } from '../../embeddings/builtin.js';

/**
 * Stack awareness: the languages, frameworks and platforms a query names ("in python", "for
 * express", "rust"), and how much of that a listing's `tech_stack` has. A named stack is a strong
 * buyer constraint, stronger than any word of the task: of two near-identical listings, the one in
 * the named stack should come first.
 *
 * Each entry is one stack with the words that name it, lowercased whole ("Node.js" → "nodejs",
 * "C++" → "cpp", "C#" → "csharp", "PostgreSQL" → "postgresql": a product name is not split at its
 * capitals, so "JavaScript" is not Java and "TypeScript" is TypeScript). In a query, an English
 * word that is also a stack name ("go", "react", "express") is a stack unless its neighbours say
 * English (ENGLISH_READINGS): a query is short and a false stack preference costs less than a
 * missed one, so only neighbours that no stack phrase has count.
 */
const STACKS: string[][] = [
  ['python', 'py'],
  ['rust'],
  ['go', 'golang'],
  ['nodejs', 'node'],
  ['javascript', 'js'],
  ['typescript', 'ts'],
  ['java'],
  ['kotlin'],
  ['scala'],
  ['swift'],
  ['ruby'],
  ['rails'],
  ['php'],
  ['laravel'],
  ['elixir'],
  ['phoenix'],
  ['cpp'],
  ['csharp', 'dotnet'],
  ['haskell'],
  ['zig'],
  ['solidity'],
  ['bash', 'shell'],
  ['dart'],
  ['lua'],
  ['perl'],
  ['clojure'],
  ['erlang'],
  ['ocaml'],
  ['fsharp'],
  ['django'],
  ['flask'],
  ['fastapi'],
  ['express', 'expressjs'],
  ['fastify'],
  ['hono'],
  ['nestjs'],
  ['koa'],
  ['hapi'],
  ['electron'],
  ['deno'],
  ['sinatra'],
  ['symfony'],
  ['wordpress'],
  ['gin'],
  ['actix'],
  ['axum'],
  ['tauri'],
  ['bevy'],
  ['ktor'],
  ['swiftui'],
  ['flutter'],
  ['blazor'],
  ['unity'],
  ['spring'],
  ['react'],
  ['vue'],
  ['svelte'],
  ['angular'],
  ['nextjs'],
  ['nuxt', 'nuxtjs'],
  ['sveltekit'],
  ['gatsby'],
  ['jquery'],
  ['tailwind'],
  ['postgresql', 'postgres'],
  ['mysql'],
  ['sqlite'],
  ['mongodb', 'mongo'],
  ['redis'],
  ['kafka'],
  ['docker'],
  ['kubernetes', 'k8s'],
  ['terraform'],
  ['aws'],
  ['puppeteer'],
  ['playwright'],
  ['prisma'],
  ['firebase'],
  ['supabase'],
  ['pandas'],
  ['numpy'],
  ['scipy'],
  ['scikit', 'sklearn'],
  ['keras'],
  ['streamlit'],
  ['scrapy'],
  ['celery'],
  ['sqlalchemy'],
  ['pydantic'],
  ['pytorch'],
  ['tensorflow'],
  ['tokio'],
  ['pgvector'],
  ['graphql'],
];

const STACK_OF = new Map<string, number>();
STACKS.forEach((names, i) => names.forEach((n) => STACK_OF.set(n, i)));

/**
 * What a framework or library implies about the rest of a listing's stack: a Flask listing is a
 * Python listing, an Express one runs on Node.js, a Tokio one is Rust. A query for "python" is
 * answered in full by a listing whose tech_stack says only "Flask, Redis". Only what is certain:
 * Node.js does not imply JavaScript (the code may be TypeScript), so "javascript" still prefers
 * the listing that says JavaScript; nor do frameworks with ports or bindings in several languages
 * imply one (TensorFlow has TensorFlow.js, Spring runs Kotlin, AngularJS is JavaScript, Prisma has
 * a Python client).
 */
const IMPLIES: Record<string, string[]> = {
  django: ['python'],
  flask: ['python'],
  fastapi: ['python'],
  pandas: ['python'],
  pytorch: ['python'],
  numpy: ['python'],
  scipy: ['python'],
  scikit: ['python'],
  keras: ['python'],
  streamlit: ['python'],
  scrapy: ['python'],
  celery: ['python'],
  sqlalchemy: ['python'],
  pydantic: ['python'],
  // the runtime only: a Node.js listing may be JavaScript or TypeScript
  express: ['nodejs'],
  fastify: ['nodejs'],
  nestjs: ['nodejs', 'typescript'],
  puppeteer: ['nodejs'],
  koa: ['nodejs'],
  hapi: ['nodejs'],
  electron: ['nodejs'],
  nextjs: ['react'],
  gatsby: ['react'],
  nuxt: ['vue'],
  sveltekit: ['svelte'],
  jquery: ['javascript'],
  rails: ['ruby'],
  sinatra: ['ruby'],
  laravel: ['php'],
  symfony: ['php'],
  wordpress: ['php'],
  phoenix: ['elixir'],
  gin: ['go'],
  tokio: ['rust'],
  actix: ['rust'],
  axum: ['rust'],
  // a Tauri app's backend is Rust whatever its web front end
  tauri: ['rust'],
  bevy: ['rust'],
  ktor: ['kotlin'],
  swiftui: ['swift'],
  flutter: ['dart'],
  blazor: ['csharp'],
  unity: ['csharp'],
};

const stackIndex = (name: string) => STACK_OF.get(name)!;
const IMPLIED = new Map<number, number[]>(
  Object.entries(IMPLIES).map(([k, v]) => [stackIndex(k), v.map(stackIndex)]),
);

/**
 * Where a stack name is an English word, from its neighbours in a query (issue 30: "have another
 * go" read as Go put the Go cron scheduler above the retrying fetch wrapper). Each entry reads
 * `word` as English when the word before it ends one of `after` (word sequences, lowercase), or
 * the word after it is one of `before`; `clauseEnds` narrows `after` to a word that ends its
 * clause or is followed by a stop word ("another go at it", but "another go library"). A
 * capitalised word that neither begins the query nor follows a clause mark is a name whatever its
 * neighbours ("have another Go"). Only neighbours no stack phrase has: "to go" stays Go ("port it
 * to go"), "react on" stays React ("React on Rails"), "go with" stays Go ("in go with redis").
 * Words without an entry ("rust", "unity", "node") are always stacks.
 */
export interface EnglishReading {
  word: string;
  after?: string[];
  clauseEnds?: boolean;
  before?: string[];
}

export const ENGLISH_READINGS: EnglishReading[] = [
  // "have a go", "give it another go": a try, and "on the go": on the move, whatever follows
  {
    word: 'go',
    after: ['have a', 'have another', 'give it a', 'give it another', 'one more', 'on the'],
  },
  // "another go at it", "the go" at a clause's end; "a go service", "the go runtime" are the stack
  { word: 'go', after: ['a', 'another', 'the'], clauseEnds: true },
  // the verb with a particle, a direction or a state: "go through the logs", "go down", "go live"
  {
    word: 'go',
    before: [
      'through',
      'back',
      'wrong',
      'live',
      'down',
      'up',
      'ahead',
      'away',
      'out',
      'over',
      'off',
      'missing',
      'stale',
      'unnoticed',
      'unanswered',
      'offline',
      'online',
      'quiet',
      'silent',
    ],
  },
  // the verb: "react to new orders", "react when a payment fails"; "react app", "react hooks" stay
  {
    word: 'react',
    before: [
      'to',
      'when',
      'whenever',
      'quickly',
      'fast',
      'immediately',
      'instantly',
      'automatically',
    ],
  },
  // the adjective of a fast service and the verb: "express delivery", "express interest"
  {
    word: 'express',
    before: [
      'delivery',
      'shipping',
      'shipment',
      'shipments',
      'courier',
      'post',
      'mail',
      'interest',
    ],
  },
  // the season: "spring cleaning", "spring sale"
  { word: 'spring', before: ['cleaning', 'clean', 'sale', 'sales', 'break', 'season'] },
  // the verb "shell out" (pay); a "shell script" stays Bash
  { word: 'shell', before: ['out'] },
  // the adjective: "a swift reply"
  { word: 'swift', before: ['reply', 'replies', 'response', 'responses', 'turnaround'] },
  // the bottle: "a flask of coffee"
  { word: 'flask', before: ['of'] },
];

/** Each stack name's readings, for the words `readStacks` looks at. */
const ENGLISH_OF = groupReadings(ENGLISH_READINGS);

/**
 * A query's words (as `words` splits them) and the stack each names there, undefined for a word
 * that names none or is read as English (ENGLISH_READINGS). `readings` is for measuring the rule
 * (`[]`: every stack name a stack, as before stop 59).
 */
export function readStacks(
  text: string,
  readings: EnglishReading[] = ENGLISH_READINGS,
): { words: string[]; stacks: Array<number | undefined> } {
  const { words: ws, breaks } = wordsWithBreaks(text);
  const lower = ws.map((w) => w.toLowerCase());
  const byWord = readings === ENGLISH_READINGS ? ENGLISH_OF : groupReadings(readings);
  const stacks = lower.map((w, i) => {
    const s = STACK_OF.get(w);
    if (s === undefined) return undefined;
    // a capital after a clause mark may begin a sentence: it says nothing there
    if (i > 0 && !breaks[i - 1] && /^[A-Z]/.test(ws[i]!)) return s;
    const ends = breaks[i]! || i + 1 === ws.length || isStopword(lower[i + 1]!);
    const english = (byWord.get(w) ?? []).some(
      (r) =>
        (r.before !== undefined && !breaks[i] && r.before.includes(lower[i + 1] ?? '')) ||
        (r.after !== undefined &&
          (!r.clauseEnds || ends) &&
          r.after.some((a) => endsWith(lower, i, a.split(' ')))),
    );
    return english ? undefined : s;
  });
  return { words: ws, stacks };
}

/** Readings by the word they read. */
function groupReadings(readings: EnglishReading[]): Map<string, EnglishReading[]> {
  const out = new Map<string, EnglishReading[]>();
  for (const r of readings) out.set(r.word, [...(out.get(r.word) ?? []), r]);
  return out;
}

/** Whether the words before index i end with `seq`. */
function endsWith(lower: string[], i: number, seq: string[]): boolean {
  if (seq.length > i) return false;
  return seq.every((w, k) => lower[i - seq.length + k] === w);
}

/** Whether a lowercase token names a stack ("go", "express", "postgresql"). */
export function isStackWord(token: string): boolean {
  return STACK_OF.has(token);
}

/**
 * The stacks a query names, as stack indexes (each once, in order of mention): its stack names
 * but those its neighbours read as English (`readStacks`). taskText reads the same words.
 */
export function namedStacks(text: string, readings = ENGLISH_READINGS): number[] {
  return unique(readStacks(text, readings).stacks);
}

/**
 * The stacks a stack list names ("Go, Redis": a listing's tech_stack, the tech_stack filter, a
 * Linguist language name): every stack name, with no English reading (a list has no sentence).
 */
export function listedStacks(text: string): number[] {
  return unique(words(text).map((w) => STACK_OF.get(w.toLowerCase())));
}

function unique(stacks: Array<number | undefined>): number[] {
  const out: number[] = [];
  for (const s of stacks) if (s !== undefined && !out.includes(s)) out.push(s);
  return out;
}

/** The stacks a listing's tech_stack names, with what they imply ("Flask" → Flask and Python). */
export function listingStacks(techStack: string): Set<number> {
  const has = new Set<number>();
  const add = (s: number) => {
    if (has.has(s)) return;
    has.add(s);
    for (const t of IMPLIED.get(s) ?? []) add(t);
  };
  listedStacks(techStack).forEach(add);
  return has;
}

/** The languages the scan measured in a listing's archive (item_previews, issue 29). */
export interface CodeMix {
  /** non-blank lines of code in all */
  lines: number;
  /** the top languages by lines, Linguist's names ("TypeScript", "C++", "Shell") */
  languages: { name: string; lines: number }[];
}

/**
 * Share of the code lines a language needs to count as a listing's measured stack: a real part of
 * the code, not a build script or a vendored helper.
 */
export const MEASURED_SHARE = 0.25;
/**
 * Credit for a stack the listing declares while its measured code is mostly other languages
 * (declared "Python", 95 % JavaScript): half a match, so that it never ties a listing whose code
 * is in that stack.
 */
export const CONTRADICTED = 0.5;

/** Linguist names whose words are not our stack words ("TSX" is TypeScript). */
const LINGUIST_ALIAS: Record<string, string> = { tsx: 'typescript', jsx: 'javascript' };

/** The stacks of one Linguist language name, through the same words as a query's. */
function languageStacks(name: string): number[] {
  const alias = LINGUIST_ALIAS[name.toLowerCase()];
  return alias !== undefined ? [stackIndex(alias)] : listedStacks(name);
}

/** The stacks of the languages a listing's code is measured in: each at least MEASURED_SHARE. */
export function measuredStacks(mix: CodeMix | null | undefined): Set<number> {
  const out = new Set<number>();
  if (!mix || mix.lines <= 0) return out;
  for (const l of mix.languages)
    if (l.lines >= MEASURED_SHARE * mix.lines) languageStacks(l.name).forEach((s) => out.add(s));
  return out;
}

/** Every stack a language name can measure (to tell a contradicted language from a framework). */
const MEASURABLE = new Set<number>(
  [
    'python',
    'rust',
    'go',
    'javascript',
    'typescript',
    'java',
    'kotlin',
    'scala',
    'swift',
    'ruby',
    'php',
    'elixir',
    'cpp',
    'csharp',
    'haskell',
    'zig',
    'solidity',
    'bash',
    'dart',
    'lua',
    'perl',
    'clojure',
    'erlang',
    'ocaml',
    'fsharp',
  ].map(stackIndex),
);

/**
 * Share (0-1) of the named stacks that a listing has; 1 when the query names none. A stack counts
 * when the listing's tech_stack names or implies it, or when the scan measured the listing's code
 * in that language (the preview's languages, MEASURED_SHARE of its lines or more). A declared
 * language that the measured code contradicts (the scan found code, in other languages only) counts
 * CONTRADICTED: the listing whose code is in the stack comes first. Frameworks and platforms
 * (React, Docker) are not measured: the declaration stands.
 */
export function stackMatch(named: number[], techStack: string, code?: CodeMix | null): number {
  if (named.length === 0) return 1;
  const declared = listingStacks(techStack);
  const measured = measuredStacks(code);
  const credit = (s: number) => {
    if (measured.has(s)) return 1;
    if (!declared.has(s)) return 0;
    return MEASURABLE.has(s) && measured.size > 0 ? CONTRADICTED : 1;
  };
  return named.reduce((sum, s) => sum + credit(s), 0) / named.length;
}

/**
 * The query without the words that name stacks there (`readStacks`: "react to new orders" keeps
 * "react"): what the buyer wants done. The stack factor judges
 * the stack; counting those words again as task words would let any listing in that stack that
 * shares a generic word ("parse", "files") outrank the listing that does the task. Words keep their
 * case (an identifier such as "parseCsv" is still split by the tokenizer later). Generic words
 * ("app", "library") go too; a query that is nothing but stack names and those is its stacks.
 */
export function taskText(text: string, readings = ENGLISH_READINGS): string {
  const { words: all, stacks: read } = readStacks(text, readings);
  const kept = all.filter(
    (w, i) => read[i] === undefined && !isStopword(w) && !GENERIC.has(w.toLowerCase()),
  );
  if (kept.length > 0) return kept.join(' ');
  // nothing but stack names and generic words ("react app"): the stacks are the task
  const stacks = all.filter((_, i) => read[i] !== undefined);
  return stacks.length > 0 ? stacks.join(' ') : text;
}

/**
 * A stack text's words as the tech_stack filter reads them, and as migration 230 stores them in
 * `items.stack_words`: names with punctuation rewritten ("C++" → "cpp"), split at anything but
 * letters and digits, lowercased. "JavaScript" is one word, so it is not "java".
 */
export function stackWords(text: string): string[] {
  return words(text).map((w) => w.toLowerCase());
}

/**
 * The listing words that satisfy one word of a tech_stack filter: the word itself and, when it
 * names a stack, that stack's other names that contain it ("node" is met by "Node.js",
 * "postgres" by "PostgreSQL", "go" by "golang"), so that the raw text always holds the word and
 * its substring filter (and index) stays a sound first cut. "java" is met only by "Java"
 * ("JavaScript" is another stack), "c" only by "C" (C++ is "cpp", C# "csharp"). A framework does
 * not stand for its language here ("python" does not match "Flask" alone): the filter asks for
 * the names a listing states; ranking still reads what they imply.
 */
export function stackFilterNames(word: string): string[] {
  const s = STACK_OF.get(word);
  if (s === undefined) return [word];
  return STACKS[s]!.filter((name) => name.includes(word)).sort();
}

/**
 * Whether every listing that has `word` in its stack words also has it in its raw tech_stack text
 * (so a substring filter on the text may narrow candidates first, through its indexes): not for
 * words only a rewrite produces ("cpp" from "C++").
 */
export function impliesRawText(word: string): boolean {
  return !REWRITTEN_WORDS.has(word);
}

/**
 * Words that every listing is, so that they name no task: "a react app", "a python library". Left
 * out of the task like stop words (issue 30: "react app" tied unrelated listings on "app").
 */
const GENERIC = new Set([
  'app',
  'apps',
  'application',
  'applications',
  'library',
  'libraries',
  'lib',
  'package',
  'module',
  'tool',
  'tools',
  'code',
]);
