import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import {
  CALIBRATION,
  capped,
  clearMatchScore,
  fusedScore,
  similarityOf,
} from '../../src/domain/search/calibration.js';
import {
  listingWords,
  phraseMatch,
  prepareQuery,
  softMatch,
  softMatchWords,
} from '../../src/domain/search/soft-match.js';
import { namedStacks, stackMatch, taskText } from '../../src/domain/search/stacks.js';

const wv = sharedWordVectors();
const soft = (q: string, doc: string) => softMatch(wv, tokenize(q), tokenize(doc));

describe('word vectors', () => {
  it('ship a table of common English words with SIF weights', () => {
    expect(wv.dims).toBe(100);
    expect(wv.has('expense')).toBe(true);
    // the most frequent words weigh little, rarer ones nearly fully
    expect(wv.weight('said')!).toBeLessThan(0.2);
    expect(wv.weight('spreadsheet')!).toBeGreaterThan(0.9);
  });

  it('match a word to its near-synonym but not to an unrelated word', () => {
    expect(soft('track my spending', 'records expenses and spending summaries')).toBeGreaterThan(
      0.5,
    );
    expect(soft('spending', 'records expenses')).toBeGreaterThan(
      soft('spending', 'snake game levels'),
    );
    expect(soft('banana bread', 'jwt login service')).toBe(0);
  });

  it('discount words that are close to everything (hubness)', () => {
    // "go" is near most English verbs; "spam" is near few words
    const go = wv.id('go')!;
    const spam = wv.id('spam')!;
    expect(wv.csls(wv.id('talk')!, go)).toBeLessThan(wv.similarity(wv.id('talk')!, go) - 0.5);
    expect(wv.csls(wv.id('spammers')!, spam)).toBeGreaterThan(wv.csls(wv.id('talk')!, go));
  });

  it('compare stack names by identity, not as English words', () => {
    // the Go listing is not a match for "talk" or "live" because "go" is an English verb
    expect(soft('talk live', 'Go')).toBe(0);
    expect(soft('go', 'Go')).toBe(1);
  });

  it('weigh task words by their rarity in the catalogue when given', () => {
    const q = tokenize('parse csv files');
    const logs = tokenize('Log file anomaly detector: parses application logs');
    const csv = tokenize('CSV to JSON converter: converting large CSV files');
    // each listing has two of the three words; "csv" is the one few listings have
    const idf = new Map([
      ['csv', 3.5],
      ['parse', 1.2],
      ['files', 0.8],
    ]);
    expect(softMatch(wv, q, csv, undefined, idf)).toBeGreaterThan(
      softMatch(wv, q, logs, undefined, idf) + 0.2,
    );
  });
});

describe('listing words kept across searches', () => {
  const listing = {
    title: 'Expense tracker',
    techStack: 'Python',
    description: 'Records spending in categories with monthly summaries',
  };
  // uncached: a listing without an id whose text no other test uses
  const fresh = (l: typeof listing) => listingWords(wv, { ...l, description: `${l.description} ` });

  it('credit closest words on the scale of each query, whatever was matched before', () => {
    const kept = listingWords(wv, { id: 'kept-scale', ...listing });
    for (const [floor, full] of [
      [-0.8, 1],
      [0.2, 0.6],
      [-0.8, 1],
    ] as const) {
      const q = prepareQuery(wv, tokenize('budget money'), floor, undefined, full);
      const body = 0.6;
      expect(softMatchWords(wv, q, kept, body)).toBe(softMatchWords(wv, q, fresh(listing), body));
    }
    // the scales credit this listing differently (else the test could not tell)
    const at = (floor: number, full: number) =>
      softMatchWords(wv, prepareQuery(wv, tokenize('budget money'), floor, undefined, full), kept);
    expect(at(-0.8, 1)).toBeGreaterThan(at(0.2, 0.6) + 0.1);
  });

  it('read a listing again when its text changed under the same id', () => {
    const q = prepareQuery(wv, tokenize('resize images'));
    const before = softMatchWords(wv, q, listingWords(wv, { id: 'kept-edit', ...listing }));
    const edited = {
      ...listing,
      title: 'Image resizer',
      description: 'Resizes images to thumbnails',
    };
    const after = softMatchWords(wv, q, listingWords(wv, { id: 'kept-edit', ...edited }));
    expect(after).toBe(softMatchWords(wv, q, fresh(edited)));
    expect(after).toBeGreaterThan(before);
  });
});

describe('phrase matching', () => {
  it("finds the query's adjacent word pairs adjacent in the listing", () => {
    const q = tokenize('parse csv files');
    expect(phraseMatch(q, ['Command-line tool converting large CSV files to JSON'])).toBe(0.5);
    expect(phraseMatch(q, ['Parses application logs and alerts on spikes'])).toBe(0);
    expect(phraseMatch(tokenize('csv'), ['csv files'])).toBe(0);
  });
});

describe('stack awareness', () => {
  it('finds the stacks a query names, with their aliases', () => {
    expect(namedStacks('jwt auth middleware for express')).toHaveLength(1);
    expect(namedStacks('Node.js websocket')).toEqual(namedStacks('node websocket'));
    expect(namedStacks('golang flags')).toEqual(namedStacks('Go'));
    expect(namedStacks('send email notifications')).toEqual([]);
  });

  it('reads product names in tech_stack whole, as a buyer types them', () => {
    expect(stackMatch(namedStacks('typescript lru cache'), 'TypeScript')).toBe(1);
    expect(stackMatch(namedStacks('postgres exporter'), 'Go, Prometheus, PostgreSQL')).toBe(1);
    expect(stackMatch(namedStacks('mongodb url shortener'), 'Node.js, Express, MongoDB')).toBe(1);
    // JavaScript is not Java, SQLite is SQLite
    expect(stackMatch(namedStacks('java'), 'JavaScript, D3')).toBe(0);
    expect(stackMatch(namedStacks('sqlite backup'), 'Bash, SQLite')).toBe(1);
  });

  it('counts a framework as the language and runtime it implies', () => {
    // a Flask listing is a Python listing; an Express one runs on Node.js
    expect(stackMatch(namedStacks('python rate limiter'), 'Flask, Redis')).toBe(1);
    expect(stackMatch(namedStacks('node jwt middleware'), 'TypeScript, Express')).toBe(1);
    expect(stackMatch(namedStacks('expressjs jwt middleware'), 'TypeScript, Express')).toBe(1);
    expect(stackMatch(namedStacks('rust async server'), 'Tokio')).toBe(1);
    // not the other way round: a Python listing is not a Flask one
    expect(stackMatch(namedStacks('rate limiting for flask'), 'Python, Django')).toBe(0);
    expect(stackMatch(namedStacks('python rate limiter'), 'TypeScript, Express')).toBe(0);
    // a runtime is not a language: Node.js code may be TypeScript
    expect(stackMatch(namedStacks('javascript jwt middleware'), 'TypeScript, Express')).toBe(0);
    // nor does a framework that runs in several languages name one
    expect(stackMatch(namedStacks('python image classifier'), 'TensorFlow.js, Node.js')).toBe(0);
    expect(stackMatch(namedStacks('java rest service'), 'Kotlin, Spring Boot')).toBe(0);
    expect(stackMatch(namedStacks('typescript dashboard'), 'Angular.js, JavaScript')).toBe(0);
  });

  it('knows the common frameworks and platforms, and the language each implies', () => {
    // issue 30: a listing that states only its framework is in that framework's language
    const cases: Array<[string, string]> = [
      ['dart', 'Flutter'],
      ['vue', 'Nuxt'],
      ['svelte', 'SvelteKit'],
      ['react', 'Gatsby'],
      ['javascript', 'jQuery'],
      ['ruby', 'Sinatra'],
      ['php', 'Symfony, MySQL'],
      ['php', 'WordPress'],
      ['go', 'Gin, PostgreSQL'],
      ['rust', 'Axum, SQLx'],
      ['rust', 'Actix'],
      ['rust', 'Tauri, React'],
      ['kotlin', 'Ktor'],
      ['swift', 'SwiftUI'],
      ['csharp', 'Blazor'],
      ['csharp', 'Unity'],
      ['node', 'Koa, Redis'],
      ['node', 'Electron'],
      ['python', 'Scrapy'],
      ['python', 'Celery, RabbitMQ'],
      ['python', 'scikit-learn'],
      ['python', 'NumPy'],
      ['python', 'Streamlit'],
    ];
    for (const [language, stack] of cases)
      expect(stackMatch(namedStacks(`${language} task`), stack), `${stack} is ${language}`).toBe(1);
    // and a framework named in a query is a stack, not a task word
    expect(namedStacks('flutter shopping list')).toHaveLength(1);
    expect(taskText('flutter shopping list')).toBe('shopping list');
    expect(stackMatch(namedStacks('sinatra api'), 'Ruby, Rails')).toBe(0);
  });

  it('scores how much of the named stack a listing has', () => {
    const stacks = namedStacks('rust cli in go');
    expect(stackMatch(stacks, 'Rust, crossterm')).toBe(0.5);
    expect(stackMatch(stacks, 'Python')).toBe(0);
    expect(stackMatch([], 'Python')).toBe(1);
  });

  it('ranks a clear match in the named stack above a clear match in another stack', () => {
    // "mongodb url shortener": the Go shortener matches the words better, the Node one has MongoDB
    const otherStack = { lexical: 1, vector: 1, meaning: 1, phrase: 1, concept: 1, stack: 0 };
    const namedStack = {
      lexical: 0.8,
      vector: 0.6,
      meaning: 0.8,
      phrase: 0.5,
      concept: 0.8,
      stack: 1,
    };
    const [other, named] = [fusedScore(otherStack), fusedScore(namedStack)];
    expect(named).toBeGreaterThan(other);
    // both are clear matches of the task: 5 where the stack is the one named, 5 × stackMiss (3.5) where it is not
    expect(similarityOf(named)).toBe(5);
    expect(similarityOf(other)).toBe(3.5);
    // below a clear match, the better task match still leads within the same stack
    const weaker = { ...namedStack, lexical: 0.2, meaning: 0.3, concept: 0.3 };
    expect(fusedScore(weaker)).toBeLessThan(named);
    expect(similarityOf(fusedScore(weaker))).toBeLessThan(5);
  });

  it('bends the task score toward the cap only where a calibration asks (stop 59, measured and off)', () => {
    const full = { lexical: 1, vector: 1, meaning: 1, phrase: 1, concept: 1, stack: 1 };
    const fuller = fusedScore(full);
    const clear = fusedScore({ ...full, lexical: 0.5, vector: 0.5, phrase: 0 });
    // shipped: a hard cap, both read 5 and only the small share of the raw score orders them
    expect(CALIBRATION.capKnee).toBe(1);
    expect(similarityOf(fuller)).toBe(5);
    expect(similarityOf(clear)).toBe(5);
    expect(clearMatchScore()).toBe(CALIBRATION.scoreFull);
    // a soft cap: linear up to the knee, then rising toward 1 without reaching it, so that the
    // fuller match reads above the lesser one on the scale itself
    expect(capped(0.5, 0.9)).toBe(0.5);
    expect(capped(1, 0.9)).toBeLessThan(1);
    expect(capped(1.2, 0.9)).toBeGreaterThan(capped(1, 0.9));
    expect(capped(5, 0.9)).toBeLessThanOrEqual(1);
    expect(capped(1.2, 1)).toBe(1);
    const soft = { ...CALIBRATION, capKnee: 0.8 };
    const even = (x: number) => ({ lexical: x, vector: x, meaning: x, phrase: x, concept: x });
    const [s1, s2] = [
      fusedScore({ ...even(0.5), stack: 1 }, soft),
      fusedScore({ ...even(0.45), stack: 1 }, soft),
    ];
    expect(s1).toBeGreaterThan(s2);
    expect(similarityOf(s1, soft)).toBeGreaterThan(similarityOf(s2, soft));
    // the concept gate: words that cover the query without its task concept stop below 5
    const gate = { ...CALIBRATION, capConcept: 0.5, capOpen: 0.8 };
    expect(similarityOf(fusedScore({ ...full, concept: 0 }, gate), gate)).toBe(4);
    expect(similarityOf(fusedScore({ ...full, concept: 0.5 }, gate), gate)).toBe(5);
  });

  it('leaves the task words for term and meaning matching', () => {
    expect(taskText('parse csv files in python')).toBe('parse csv files');
    expect(taskText('python')).toBe('python');
  });
});
