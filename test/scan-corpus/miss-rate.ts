import { FileSecrets } from '../../src/scan/secrets.js';

/**
 * How often the secret rules miss a value drawn the way the tests draw it, computed exactly
 * rather than sampled (a CI run is ~2,650 tests: a draw missed once in 10^5 sinks a stop now and
 * then, and sampling cannot see 10^-7).
 *
 * A uniformly random value of `n` characters from an alphabet of `a` is, for the rules' entropy
 * bars, only its profile of counts (how many characters appear once, twice, …). Every profile
 * (a partition of `n`) has an exact probability; one value with that profile, its characters
 * spread evenly so that it repeats nothing and forms no filler run, goes through the real rule
 * (FileSecrets, as the inspector asks it). The miss rate is the mass of the profiles missed.
 * Profiles under 1e-14 each are not asked; their whole mass is printed as `unasked` (an upper
 * bound on what they could add). The token() generator's retry for a digit, a lower and an upper
 * letter is ignored: it moves these figures by well under 1 %.
 *
 *   npx tsx test/scan-corpus/miss-rate.ts
 */
/** The 62 letters and digits, a digit, an upper and a lower letter in turn (mixed from the first). */
const ALNUM = interleave([
  '7295038416',
  'KXRPLHTNGJABCDEFIMOQSUVWYZ',
  'qmzwdybfscaeghijklnoprtuvx',
]);
const HEX = '0123456789abcdef';

interface Draw {
  name: string;
  /** How many characters the generator draws, from which alphabet. */
  n: number;
  alphabet: string;
  /** The value found, by the rule meant to find it. */
  found: (value: string) => boolean;
}

const tokenLine = (path: string, line: (v: string) => string, rule: string) => (v: string) =>
  new FileSecrets(path).tokenLine(line(v), 1)?.rule === rule;

const DRAWS: Draw[] = [
  ...[20, 24, 32, 40, 44].map((n): Draw => ({
    name: `token(${n}) under a secret name, config (client_secret: …)`,
    n,
    alphabet: ALNUM,
    found: tokenLine('config/app.yml', (v) => `client_secret: ${v}`, 'secret:named_value'),
  })),
  {
    name: 'a wallet key (64 hex, viem generatePrivateKey) in .env',
    n: 64,
    alphabet: HEX,
    found: tokenLine('.env', (v) => `PRIVATE_KEY=${v}`, 'secret:wallet_key'),
  },
];

const lnFact = (() => {
  const t = [0];
  for (let i = 1; i <= 256; i++) t.push(t[i - 1]! + Math.log(i));
  return (i: number) => t[i]!;
})();

/** Partitions of `n` into at most `k` parts, largest first. */
function* partitions(n: number, k: number, max = n): Generator<number[]> {
  if (n === 0) {
    yield [];
    return;
  }
  if (k === 0) return;
  for (let p = Math.min(n, max); p >= 1; p--)
    for (const rest of partitions(n - p, k - 1, p)) yield [p, ...rest];
}

/** ln P(a uniform draw of n from a symbols has this profile of counts). */
function lnProbability(counts: number[], a: number): number {
  const n = counts.reduce((s, c) => s + c, 0);
  const same = new Map<number, number>();
  for (const c of counts) same.set(c, (same.get(c) ?? 0) + 1);
  let lp = lnFact(a) - lnFact(a - counts.length) + lnFact(n) - n * Math.log(a);
  for (const m of same.values()) lp -= lnFact(m);
  for (const c of counts) lp -= lnFact(c);
  return lp;
}

/** One value with these counts: symbol i repeated counts[i] times, spread by a stride over n. */
function representative(counts: number[], alphabet: string): string {
  const sorted = counts.flatMap((c, i) => Array<string>(c).fill(alphabet[i]!));
  const n = sorted.length;
  let stride = Math.round(n * 0.618);
  while (gcd(stride, n) !== 1) stride++;
  return Array.from({ length: n }, (_, j) => sorted[(j * stride) % n]!).join('');
}

function interleave(parts: string[]): string {
  let out = '';
  for (let i = 0; out.length < parts.reduce((s, p) => s + p.length, 0); i++)
    for (const p of parts) if (i < p.length) out += p[i];
  return out;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

const FLOOR = Math.log(1e-14);
for (const d of DRAWS) {
  let missed = 0;
  let unasked = 0;
  for (const counts of partitions(d.n, d.alphabet.length)) {
    const lp = lnProbability(counts, d.alphabet.length);
    if (lp < FLOOR) unasked += Math.exp(lp);
    else if (!d.found(representative(counts, d.alphabet))) missed += Math.exp(lp);
  }
  console.log(
    `${d.name}: missed ${missed.toExponential(2)} of draws (unasked ${unasked.toExponential(1)})`,
  );
}
