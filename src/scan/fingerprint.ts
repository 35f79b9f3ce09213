/**
 * Near-duplicate detection by one-permutation MinHash over the set of an archive's meaningful
 * lines: each line hash is mixed once, its top 6 bits pick one of 64 buckets and the bucket keeps
 * its smallest remaining value. Two listings whose line sets overlap heavily (renamed files,
 * re-zipped, a few edits) agree in most non-empty buckets; that share estimates their Jaccard
 * similarity. One pass, constant memory, no per-line set. LSH bands (16 bands of 4 buckets) let the
 * database find candidates with one indexed overlap query.
 */
export const MINHASH_SIZE = 64;
const BAND_ROWS = 4;
const EMPTY = 0xffffffff;

export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Sketch {
  readonly buckets = new Uint32Array(MINHASH_SIZE).fill(EMPTY);

  add(lineHash: number): void {
    const x = fmix32(lineHash ^ 0x9e3779b9);
    const b = x >>> 26;
    const v = x & 0x3ffffff;
    if (v < this.buckets[b]!) this.buckets[b] = v;
  }

  /** The signature as signed 32-bit integers (Postgres int4[]). */
  signature(): number[] {
    return Array.from(this.buckets, (v) => v | 0);
  }
}

export function bands(signature: number[]): string[] {
  const out: string[] = [];
  for (let b = 0; b * BAND_ROWS < signature.length; b++) {
    const rows = signature
      .slice(b * BAND_ROWS, (b + 1) * BAND_ROWS)
      .map((v) => (v >>> 0).toString(16));
    out.push(`${b}:${rows.join('.')}`);
  }
  return out;
}

/** Estimated Jaccard similarity: agreeing buckets among those not empty in both. */
export function similarity(a: number[], b: number[]): number {
  let same = 0;
  let used = 0;
  for (let i = 0; i < MINHASH_SIZE; i++) {
    const x = a[i]! >>> 0;
    const y = b[i]! >>> 0;
    if (x === EMPTY && y === EMPTY) continue;
    used++;
    if (x === y) same++;
  }
  return used === 0 ? 0 : same / used;
}
