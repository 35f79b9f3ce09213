import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { WORD_VECTORS_FILE, WordVectors } from '../../src/embeddings/word-vectors.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('word vectors', () => {
  it('keep the table in the file as read: no second copy of its 6 MB of rows', () => {
    const bytes = readFileSync(WORD_VECTORS_FILE);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const wv = new WordVectors(bytes);
    const added = process.memoryUsage().arrayBuffers - before;
    // per word: weight, scale, hub and norm (4 × 4 bytes × ~60,000 words, under 1 MB); a copy of
    // the int8 rows was 6 MB more, resident for the life of every process that searches
    expect(added).toBeLessThan(2 * 2 ** 20);
    // still a working table
    const [cat, dog, invoice] = ['cat', 'dog', 'invoice'].map((w) => wv.id(w)!);
    expect(wv.similarity(cat!, dog!)).toBeGreaterThan(wv.similarity(cat!, invoice!));
    expect(wv.similarity(cat!, cat!)).toBeCloseTo(1, 6);
  });
});
