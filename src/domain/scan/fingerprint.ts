/**
 * Near-duplicate detection by MinHash over the set of an archive's meaningful lines. Two listings
 * whose line sets overlap heavily (renamed files, re-zipped, a few edits) get signatures that agree
 * in most positions; the share of agreeing positions estimates their Jaccard similarity.
 * LSH bands (16 bands of 4 values) let the database find candidates with one indexed overlap query.
 */
export const MINHASH_SIZE = 64;
const BAND_ROWS = 4;

// Fixed seeds: signatures must be comparable across processes and releases.
const SEEDS = Array.from({ length: MINHASH_SIZE }, (_, i) => fmix32(0x9e3779b9 ^ Math.imul(i + 1, 0x85ebca6b)));

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The signature as signed 32-bit integers (Postgres int4[]). */
export function minhash(lineHashes: ArrayLike<number>): number[] {
  const mins = new Array<number>(MINHASH_SIZE).fill(0xffffffff);
  for (let j = 0; j < lineHashes.length; j++) {
    const x = lineHashes[j]!;
    for (let i = 0; i < MINHASH_SIZE; i++) {
      const v = fmix32(x ^ SEEDS[i]!);
      if (v < mins[i]!) mins[i] = v;
    }
  }
  return mins.map((v) => v | 0);
}

export function bands(signature: number[]): string[] {
  const out: string[] = [];
  for (let b = 0; b * BAND_ROWS < signature.length; b++) {
    const rows = signature.slice(b * BAND_ROWS, (b + 1) * BAND_ROWS).map((v) => (v >>> 0).toString(16));
    out.push(`${b}:${rows.join('.')}`);
  }
  return out;
}

export function similarity(a: number[], b: number[]): number {
  let same = 0;
  for (let i = 0; i < MINHASH_SIZE; i++) if (a[i] === b[i]) same++;
  return same / MINHASH_SIZE;
}
