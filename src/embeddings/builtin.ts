import type { Embedder } from './embedder.js';
import { sharedWordVectors, type WordVectors } from './word-vectors.js';

/**
 * The built-in offline embedder, two parts in one unit vector: signed feature hashing of code-aware tokens, their light stems,
 * concept groups (so that "scraper" and "crawler", or "login" and "authentication", land near each
 * other), word bigrams and character trigrams, (the exact and near-exact words of a text), followed by a SIF sentence vector of
 * distributional word vectors (what the words mean: "throttle" lands near "limit", "spending" near
 * "expense"; see word-vectors.ts). Each part is unit length and scaled so that the cosine of two
 * texts is `(1 − WV_SHARE)·cos_hash + WV_SHARE·cos_words`. No model download, no network,
 * deterministic across processes and machines.
 *
 * It is still an approximation, not a language model: operators who want more point EMBEDDINGS_URL
 * at an OpenAI-compatible endpoint and run `npm run reindex`.
 */
export const BUILTIN_MODEL = 'builtin-wv-v3';
/** Hashed features (256) followed by the word-vector part (100). */
export const BUILTIN_DIMENSIONS = 356;
/** Share of the word-vector part in the cosine (measured with `npm run bench -- relevance`). */
export const WV_SHARE = 0.5;

/**
 * Words that carry no task: the Snowball English list (the one Postgres' `english` text search
 * configuration drops, so the lexical and the vector side see the same words) plus filler common in
 * listings and requests.
 */
const STOPWORDS = new Set(
  [
    // Snowball English (Postgres tsearch_data/english.stop)
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now',
    // filler
    'using use uses used via could would may might must simple small based built many much every also like make makes get gets want wants need needs thing things something lets let allow allows one two',
  ]
    .join(' ')
    .split(' '),
);

// Names whose punctuation matters, mapped before tokenisation. Migration 230 repeats these
// rewrites in SQL for `items.stack_words` (the tech_stack filter): change both together.
const SPECIAL: Array<[RegExp, string]> = [
  [/c\+\+/gi, ' cpp '],
  [/c#/gi, ' csharp '],
  [/f#/gi, ' fsharp '],
  [/\.net\b/gi, ' dotnet '],
  [/\bnode\.?js\b/gi, ' nodejs '],
  [/\bnext\.?js\b/gi, ' nextjs '],
  [/\bvue\.?js\b/gi, ' vue '],
  [/\breact\.?js\b/gi, ' react '],
];

/** Concept groups: every member also emits the group's token. Kept small and general. */
const CONCEPTS: Record<string, string[]> = {
  web_server: [
    'server',
    'http',
    'api',
    'rest',
    'request',
    'response',
    'endpoint',
    'backend',
    'service',
    'route',
    'router',
    'webserver',
    'microservice',
    'fastify',
    'express',
    'flask',
    'django',
    'fastapi',
    'gin',
    'actix',
    'axum',
    'hono',
  ],
  scraping: [
    'scrape',
    'scraper',
    'crawl',
    'crawler',
    'spider',
    'harvest',
    'extract',
    'extractor',
    'fetcher',
    'puppeteer',
    'playwright',
    'beautifulsoup',
  ],
  auth: [
    'auth',
    'authentication',
    'authorization',
    'login',
    'signin',
    'logon',
    'oauth',
    'jwt',
    'session',
    'password',
    'credential',
    'sso',
    'identity',
  ],
  database: [
    'database',
    'db',
    'sql',
    'postgres',
    'postgresql',
    'mysql',
    'sqlite',
    'mongodb',
    'mongo',
    'redis',
    'orm',
    'query',
    'schema',
    'migration',
    'table',
  ],
  frontend: [
    'frontend',
    'ui',
    'component',
    'react',
    'vue',
    'svelte',
    'angular',
    'css',
    'html',
    'page',
    'widget',
    'dashboard',
    'interface',
  ],
  cli: ['cli', 'command', 'terminal', 'shell', 'console', 'argv', 'flag', 'prompt', 'tui'],
  chart: [
    'chart',
    'plot',
    'graph',
    'visualization',
    'visualize',
    'visualise',
    'diagram',
    'histogram',
    'd3',
    'matplotlib',
  ],
  testing: [
    'test',
    'testing',
    'unittest',
    'jest',
    'vitest',
    'pytest',
    'mock',
    'fixture',
    'assertion',
    'coverage',
  ],
  payments: [
    'payment',
    'pay',
    'billing',
    'invoice',
    'checkout',
    'stripe',
    'usdc',
    'crypto',
    'wallet',
    'x402',
    'subscription',
  ],
  ml: [
    'ml',
    'machine',
    'learning',
    'model',
    'neural',
    'train',
    'training',
    'inference',
    'classifier',
    'regression',
    'pytorch',
    'tensorflow',
    'embedding',
    'llm',
  ],
  chat: [
    'chat',
    'chatbot',
    'bot',
    'message',
    'messaging',
    'conversation',
    'slack',
    'discord',
    'telegram',
    'assistant',
  ],
  file: [
    'file',
    'filesystem',
    'upload',
    'download',
    'storage',
    's3',
    'blob',
    'bucket',
    'archive',
    'zip',
  ],
  pdf: ['pdf', 'document', 'report', 'docx', 'render', 'invoice'],
  image: ['image', 'photo', 'picture', 'thumbnail', 'resize', 'png', 'jpeg', 'jpg', 'svg', 'pixel'],
  queue: [
    'queue',
    'job',
    'worker',
    'task',
    'scheduler',
    'cron',
    'background',
    'celery',
    'bullmq',
    'rabbitmq',
    'kafka',
  ],
  monitoring: [
    'monitor',
    'monitoring',
    'metric',
    'metrics',
    'log',
    'logging',
    'logger',
    'alert',
    'observability',
    'tracing',
    'prometheus',
    'grafana',
    'uptime',
  ],
  email: ['email', 'mail', 'smtp', 'newsletter', 'inbox', 'mailer'],
  realtime: ['websocket', 'realtime', 'socket', 'stream', 'streaming', 'pubsub', 'sse', 'live'],
  parse: ['parse', 'parser', 'lexer', 'tokenizer', 'grammar', 'ast', 'compiler', 'interpreter'],
  convert: [
    'convert',
    'converter',
    'conversion',
    'transform',
    'translate',
    'export',
    'import',
    'turn',
  ],
  json: [
    'json',
    'yaml',
    'toml',
    'csv',
    'xml',
    'config',
    'configuration',
    'spreadsheet',
    'excel',
    'xlsx',
    'tsv',
    'tabular',
  ],
  deploy: [
    'deploy',
    'deployment',
    'docker',
    'container',
    'kubernetes',
    'k8s',
    'helm',
    'terraform',
    'ci',
    'cd',
    'pipeline',
    'devops',
  ],
  cache: ['cache', 'caching', 'memoize', 'lru', 'ttl'],
  rate_limit: [
    'rate',
    'limit',
    'limiter',
    'throttle',
    'throttling',
    'quota',
    'flood',
    'burst',
    'backoff',
  ],
  search: [
    'search',
    'index',
    'indexing',
    'fulltext',
    'lookup',
    'find',
    'retrieval',
    'elasticsearch',
  ],
  game: ['game', 'player', 'sprite', 'physics', 'level', 'arcade', 'puzzle'],
  todo: ['todo', 'task', 'checklist', 'kanban', 'reminder', 'planner'],
  blockchain: [
    'blockchain',
    'ethereum',
    'evm',
    'solidity',
    'contract',
    'web3',
    'token',
    'nft',
    'chain',
  ],
  typescript: ['typescript', 'ts', 'tsx'],
  javascript: ['javascript', 'js', 'nodejs', 'node', 'npm', 'deno', 'bun'],
  python: ['python', 'py', 'pip', 'django', 'flask', 'fastapi'],
  rust: ['rust', 'cargo', 'rs', 'tokio'],
  golang: ['go', 'golang'],
  weather: ['weather', 'forecast', 'temperature', 'climate'],
  markdown: ['markdown', 'md', 'blog', 'static', 'site', 'generator'],
  url: ['url', 'link', 'shortener', 'redirect', 'slug'],
};

const CONCEPT_OF = new Map<string, string[]>();
for (const [concept, words] of Object.entries(CONCEPTS)) {
  for (const w of words) {
    const key = stem(w);
    CONCEPT_OF.set(key, [...(CONCEPT_OF.get(key) ?? []), concept]);
  }
}

/** The concept groups of a word (by its stem), for callers that compare words. */
export function conceptsOf(word: string): readonly string[] {
  return CONCEPT_OF.get(stem(word)) ?? [];
}

/** A deliberately light stemmer: enough to join plural and verb forms, stable for short words. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return word.slice(0, -3) + 'y';
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ers') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('er') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('es') && word.length > 4 && /(ss|sh|ch|x|z)es$/.test(word))
    return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

/** The words the rewrites of names with punctuation produce ("cpp", "csharp", "nodejs", ...). */
export const REWRITTEN_WORDS: ReadonlySet<string> = new Set(SPECIAL.map(([, w]) => w.trim()));

/** The words of a text, case kept, after names whose punctuation matters are mapped ("C++" → "cpp"). */
export function words(text: string): string[] {
  let t = text;
  for (const [re, rep] of SPECIAL) t = t.replace(re, rep);
  return t.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

/**
 * The words of a text as `words` reads them, and for each word whether a clause ends after it
 * (a sentence or clause mark, a bracket or a line break stands between it and the next word).
 */
export function wordsWithBreaks(text: string): { words: string[]; breaks: boolean[] } {
  let t = text;
  for (const [re, rep] of SPECIAL) t = t.replace(re, rep);
  const out: string[] = [];
  const breaks: boolean[] = [];
  let last = -1;
  for (const m of t.matchAll(/[A-Za-z0-9]+/g)) {
    if (out.length > 0) breaks.push(/[.,;:!?()[\]{}\n]/.test(t.slice(last, m.index)));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (out.length > 0) breaks.push(true);
  return { words: out, breaks };
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/**
 * Code-aware tokens, lowercase: camelCase, PascalCase, snake_case, kebab-case and stack names
 * split. A word with inner capitals gives its whole form first, then its parts, so that a product
 * name matches as typed in lowercase ("PostgreSQL" → postgresql, postgre, sql; "TypeScript" →
 * typescript, type, script) and an identifier still matches by its parts ("parseCsv" → parsecsv,
 * parse, csv).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const keep = (w: string) => {
    if (w && w.length <= 40 && !STOPWORDS.has(w)) out.push(w);
  };
  for (const word of words(text)) {
    const parts = word
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .toLowerCase()
      .split(' ');
    if (parts.length > 1) keep(word.toLowerCase());
    parts.forEach(keep);
  }
  return out;
}

function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function embedText(text: string, dims: number): number[] {
  // feature -> [base weight of its kind, occurrences]
  const features = new Map<string, [number, number]>();
  const add = (f: string, w: number) => {
    const seen = features.get(f);
    if (seen) seen[1]++;
    else features.set(f, [w, 1]);
  };
  const tokens = tokenize(text);
  const stems = tokens.map(stem);
  stems.forEach((s, i) => {
    add(`w:${s}`, 1);
    for (const c of CONCEPT_OF.get(s) ?? []) add(`c:${c}`, 1);
    const next = stems[i + 1];
    if (next) add(`b:${s}_${next}`, 0.5);
    const padded = `^${s}$`;
    if (s.length >= 4)
      for (let j = 0; j + 3 <= padded.length; j++) add(`g:${padded.slice(j, j + 3)}`, 0.1);
  });
  const v = new Array<number>(dims).fill(0);
  for (const [f, [base, count]] of features) {
    const weight = base * (1 + Math.log(count)); // sublinear term frequency
    const h = fnv1a(f);
    const sign = fnv1a(f, 0x9747b28c) & 1 ? 1 : -1;
    v[h % dims]! += sign * weight;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm === 0) {
    v[0] = 1; // an empty text still needs a valid unit vector for cosine distance
    return v;
  }
  return v.map((x) => x / norm);
}

/**
 * The full built-in vector: `dims − wv.dims` hashed features then the word-vector part. Below
 * 2 × the word-vector dimension there is no room for both and the vector is hashed features only.
 */
export function embedHybrid(
  text: string,
  dims: number,
  wv: WordVectors,
  share = WV_SHARE,
): number[] {
  if (dims < 2 * wv.dims) return embedText(text, dims);
  const hashed = embedText(text, dims - wv.dims);
  const words = wv.sentence(tokenize(text));
  const hasWords = words.some((x) => x !== 0);
  const a = hasWords ? Math.sqrt(1 - share) : 1;
  const b = hasWords ? Math.sqrt(share) : 0;
  const out = hashed.map((x) => a * x);
  for (const x of words) out.push(b * x);
  return out;
}

export class BuiltinEmbedder implements Embedder {
  readonly model = BUILTIN_MODEL;
  /** `wordVectors` defaults to the shipped table, read at the first embedding (not at start). */
  constructor(
    readonly dimensions = BUILTIN_DIMENSIONS,
    private readonly wordVectors?: WordVectors,
  ) {}
  async embed(texts: string[]): Promise<number[][]> {
    const wv = this.wordVectors ?? sharedWordVectors();
    return texts.map((t) => embedHybrid(t, this.dimensions, wv));
  }
}
