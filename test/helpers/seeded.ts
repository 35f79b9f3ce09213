import { createCipheriv, createHash } from 'node:crypto';

/** `randomInt`'s shape: an integer in [0, max) or [min, max). */
export type IntSource = (minOrMax: number, max?: number) => number;

/**
 * A reproducible `randomInt`: integers drawn from AES-256-CTR's keystream under a key hashed from
 * `seed`. A test that asserts a property of many random values uses it, so a run either holds for
 * every value it draws or names the seed and the value that broke it, the same on every run,
 * rather than failing once in a few hundred CI runs.
 */
export function seededInt(seed: string): IntSource {
  const key = createHash('sha256').update(seed).digest();
  const stream = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(4096);
  let block = stream.update(zeros);
  let at = 0;
  const next32 = (): number => {
    if (at + 4 > block.length) {
      block = stream.update(zeros);
      at = 0;
    }
    const v = block.readUInt32LE(at);
    at += 4;
    return v;
  };
  return (minOrMax, max) => {
    const [lo, hi] = max === undefined ? [0, minOrMax] : [minOrMax, max];
    const range = hi - lo;
    if (!Number.isInteger(range) || range <= 0 || range > 2 ** 32) {
      throw new RangeError(`seededInt: bad range [${lo}, ${hi})`);
    }
    // rejection sampling: the top of the 32-bit range that would favour low values is redrawn
    const limit = 2 ** 32 - (2 ** 32 % range);
    for (;;) {
      const v = next32();
      if (v < limit) return lo + (v % range);
    }
  };
}
