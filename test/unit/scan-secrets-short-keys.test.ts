import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { entropy, entropyFloor, looksRandom } from '../../src/scan/secrets.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { type IntSource, seededInt } from '../helpers/seeded.js';
import { token } from '../scan-corpus/content-variants.js';

/**
 * A random key is random whatever its entropy happens to read: the named-value rule judged every
 * value against 3.7 bits a character (3.3 for hex), which 2.5 % of random 20-character keys and
 * 1.7 % of random 32-digit hex keys fall under by chance: a seller's real key went through. The
 * threshold now follows the value's length (`entropyFloor`).
 */
const HEX = '0123456789abcdef';
const DJANGO = 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)';

const draw = (int: IntSource, n: number, abc: string) =>
  Array.from({ length: n }, () => abc[int(abc.length)]).join('');

/** 20,000 keys of letters and digits, 20-31 long (the rule's shortest), seeded. */
const alnumKeys = (() => {
  const int = seededInt('short-keys:alnum');
  return Array.from({ length: 20_000 }, (_, i) => token(20 + (i % 12), undefined, int));
})();

/** 20,000 hex keys, 32-40 digits, seeded; an all-digit or all-letter draw is not a hex key. */
const hexKeys = (() => {
  const int = seededInt('short-keys:hex');
  const keys: string[] = [];
  while (keys.length < 20_000) {
    const k = draw(int, 32 + (keys.length % 9), HEX);
    if (/\d/.test(k) && /[a-f]/.test(k)) keys.push(k);
  }
  return keys;
})();

const lowest = (keys: string[], n: number) =>
  [...keys].sort((a, b) => entropy(a) - entropy(b)).slice(0, n);

const scanLines = async (lines: string[]) => {
  const files = Object.fromEntries(lines.map((l, i) => [`config/k${i}.py`, l]));
  const out = await scanArchive(
    zipOf({ ...uniqueProject(), ...files }),
    'zip',
    DEFAULT_SCAN_LIMITS,
  );
  const found = new Set((out.verdict === 'reject' ? out.findings : []).map((f) => f.file));
  return lines.filter((_, i) => !found.has(`config/k${i}.py`));
};

describe('a short random key under a secret name', () => {
  it('the key a CI run drew, 24 characters with "your" inside (entropy 3.67), is found', async () => {
    expect(await scanLines(['api_key = "x0A8yyRPg8ylyourQnAHQxQQ"\n'])).toEqual([]);
  });

  it('20,000 keys of letters and digits, 20-31 long, all look random', () => {
    expect(alnumKeys.filter((k) => !looksRandom(k))).toEqual([]);
  });

  it('20,000 hex keys, 32-40 digits, all look random', () => {
    expect(hexKeys.filter((k) => !looksRandom(k))).toEqual([]);
  });

  it('the 20 least random of each, and of 20,000 Django keys, are found by the scan', async () => {
    const int = seededInt('short-keys:django');
    const django = Array.from({ length: 20_000 }, () => draw(int, 50, DJANGO));
    // one archive a kind: a report names at most 50 findings
    const missed = [
      ...(await scanLines(lowest(alnumKeys, 20).map((k) => `api_key = "${k}"\n`))),
      ...(await scanLines(lowest(hexKeys, 20).map((k) => `client_secret: "${k}"\n`))),
      ...(await scanLines(lowest(django, 20).map((k) => `SECRET_KEY = '${k}'\n`))),
    ];
    expect(missed).toEqual([]);
  });

  it('the floor is what random draws clear, and long values keep the rule threshold', () => {
    // 62 symbols, 20 characters: a draw reads 4.03 bits on average, one in a million under 3.08
    expect(entropyFloor(20, 62)).toBeGreaterThan(2.8);
    expect(entropyFloor(20, 62)).toBeLessThan(3.08);
    // so a repeated pattern of a random key's classes is still not a key
    expect(looksRandom('aB3xaB3xaB3xaB3xaB3x')).toBe(false);
    expect(looksRandom('Passw0rdPassw0rdPass')).toBe(false);
    // at 40 characters the floor is above 3.7: the fixed threshold decides, as before
    expect(entropyFloor(40, 62)).toBeGreaterThan(3.7);
  });
});
