import { tokenize } from '../../embeddings/builtin.js';

/**
 * Stack awareness: the languages, frameworks and platforms a query names ("in python", "for
 * express", "rust"), and how much of that a listing's `tech_stack` has. A named stack is a strong
 * buyer constraint, stronger than any word of the task: of two near-identical listings, the one in
 * the named stack should come first.
 *
 * Each entry is one stack with the tokens (after the embedder's code-aware tokenizer: "Node.js" →
 * "nodejs", "C++" → "cpp", "C#" → "csharp") that name it. English words that are also stack names
 * ("go", "express", "rust", "react") count only as stacks: a query is short and a false stack
 * preference costs less than a missed one.
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
  ['django'],
  ['flask'],
  ['fastapi'],
  ['express'],
  ['fastify'],
  ['hono'],
  ['nestjs'],
  ['spring'],
  ['react'],
  ['vue'],
  ['svelte'],
  ['angular'],
  ['nextjs'],
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
  ['pandas'],
  ['pytorch'],
  ['tensorflow'],
  ['tokio'],
  ['pgvector'],
  ['graphql'],
];

const STACK_OF = new Map<string, number>();
STACKS.forEach((names, i) => names.forEach((n) => STACK_OF.set(n, i)));

/** The stacks a text names, as stack indexes (each once, in order of mention). */
export function namedStacks(text: string): number[] {
  const out: number[] = [];
  for (const t of tokenize(text)) {
    const s = STACK_OF.get(t);
    if (s !== undefined && !out.includes(s)) out.push(s);
  }
  return out;
}

/** Share (0-1) of the named stacks that a listing's tech_stack has; 1 when the query names none. */
export function stackMatch(named: number[], techStack: string): number {
  if (named.length === 0) return 1;
  const has = new Set(namedStacks(techStack));
  return named.filter((s) => has.has(s)).length / named.length;
}

/**
 * The query without the words that name stacks: what the buyer wants done. The stack factor judges
 * the stack; counting those words again as task words would let any listing in that stack that
 * shares a generic word ("parse", "files") outrank the listing that does the task. A query that is
 * nothing but stack names is kept whole.
 */
export function taskText(text: string): string {
  const kept = tokenize(text).filter((t) => !STACK_OF.has(t));
  return kept.length > 0 ? kept.join(' ') : text;
}
