import { createHash, randomBytes, randomInt } from 'node:crypto';
import { tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import type { CorpusCase, CorpusCompression } from './types.js';

/**
 * Helpers of the content families (secrets, code, benign look-alikes): a variant is one hostile
 * (or benign) addition to a real project; it is packed in zip and in tar.gz, at the root of the
 * archive and under nested folders, so that neither the format nor the depth can hide it.
 */
export interface Variant {
  /** Short, stable name (`env-bare-hex`). */
  name: string;
  /** The files to add, made fresh on each build (every secret is generated, never committed). */
  files(): Files;
  expectCheck: string;
}

const DEPTHS = [
  ['root', ''],
  ['nested', 'services/billing-api/'],
] as const;

/** A stable seed per case name, so each case's surrounding project is its own. */
const seedOf = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 10);

/**
 * Each variant four times: zip and tar.gz, each at the root and under nested folders (the paths of
 * a variant's files are then prefixed, so `.env` becomes `services/billing-api/.env`).
 */
export function hostileCases(family: string, variants: Variant[]): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const v of variants)
    for (const [depth, prefix] of DEPTHS)
      for (const compression of ['zip', 'tar.gz'] as const) {
        const name = `${family}/${v.name}@${depth}-${compression}`;
        cases.push({
          name,
          family,
          hostile: true,
          compression,
          expectCheck: v.expectCheck,
          build: () =>
            pack(compression, { ...uniqueProject(seedOf(name)), ...prefixed(prefix, v.files()) }),
        });
      }
  return cases;
}

export function prefixed(prefix: string, files: Files): Files {
  return Object.fromEntries(Object.entries(files).map(([p, d]) => [prefix + p, d]));
}

export function pack(compression: CorpusCompression, files: Files): Buffer | Promise<Buffer> {
  return compression === 'zip' ? zipOf(files) : tarGzOf(files);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random letters and digits of both cases, with at least one of each kind (`int`: the draws). */
export function token(
  n: number,
  alphabet = ALNUM,
  int: (max: number) => number = randomInt,
): string {
  for (;;) {
    const s = Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
    if (alphabet !== ALNUM || (/\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s))) return s;
  }
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** A password as people choose them: words, digits and a symbol. */
export function password(): string {
  const words = ['Harbor', 'violet', 'Tiger', 'maple', 'Quartz', 'ember', 'Falcon', 'river'];
  return `${words[randomInt(8)]}${randomInt(10, 99)}${'!#%&*'[randomInt(5)]}${words[randomInt(8)]}${randomInt(100, 999)}`;
}
