import { createRequire } from 'node:module';

/**
 * Licence detection for the preview. No maintained licence-text matcher exists on npm that works
 * offline, so this is a bounded matcher over the SPDX list's own texts (`spdx-license-list`):
 * a licence file's words, normalised (case, punctuation, British spellings, copyright lines and
 * template placeholders dropped), are compared as word pairs with each candidate's (Sørensen–Dice
 * coefficient); the best candidate at or above MATCH wins. The candidates are the licences
 * listings use (CANDIDATES); any other licence text reads `NOASSERTION`. An explicit
 * `SPDX-License-Identifier:` line is taken as written. GPL-family texts cannot say "only" or "or
 * later" (that is in each file's header): the `-only` id is reported. A short notice (at most
 * NOTICE_WORDS words) whose first line is a candidate's SPDX name or id (`MIT License`, followed
 * only by a copyright line) is reported as that licence.
 */
export const CANDIDATES = [
  'MIT',
  'MIT-0',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'BSD-3-Clause-Clear',
  '0BSD',
  'ISC',
  'GPL-2.0-only',
  'GPL-3.0-only',
  'LGPL-2.1-only',
  'LGPL-3.0-only',
  'AGPL-3.0-only',
  'MPL-2.0',
  'Unlicense',
  'CC0-1.0',
  'BSL-1.0',
  'EPL-1.0',
  'EPL-2.0',
  'Zlib',
  'WTFPL',
  'Artistic-2.0',
  'CC-BY-4.0',
  'CC-BY-SA-4.0',
  'EUPL-1.2',
  'PostgreSQL',
  'NCSA',
  'BlueOak-1.0.0',
  'UPL-1.0',
  'MS-PL',
  'Unicode-3.0',
] as const;

/** Dice similarity a licence file needs with a candidate's text to be reported as it. */
export const MATCH = 0.8;
/** The bytes of a licence file read (the longest candidate text, AGPL/LGPL, is ~35 KB). */
export const LICENCE_BYTES = 64 * 1024;
export const NOTICE_WORDS = 40;

const require = createRequire(import.meta.url);
let templates: { id: string; name: string; pairs: Set<string> }[] | undefined;

function load() {
  return CANDIDATES.map((id) => {
    const { name, licenseText } = require(`spdx-license-list/licenses/${id}.json`) as {
      name: string;
      licenseText: string;
    };
    return { id, name: name.toLowerCase(), pairs: pairsOf(licenseText) };
  });
}

const SPELLINGS: Record<string, string> = {
  licence: 'license',
  licences: 'licenses',
  licenced: 'licensed',
  licensor: 'licensor',
  authorised: 'authorized',
  organisation: 'organization',
};

function pairsOf(text: string): Set<string> {
  const words = text
    .split('\n')
    // © written as its escape: the bundle's source stays ASCII (scripts/build.mjs, asciiComments)
    .filter((l) => !/^\s*(?:copyright|\(c\)|\u00a9)/i.test(l))
    .join('\n')
    .replace(/<[^>\n]{0,80}>|\[[^\]\n]{0,80}\]/g, ' ')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => SPELLINGS[w] ?? w);
  const pairs = new Set<string>();
  for (let i = 1; i < words.length; i++) pairs.add(`${words[i - 1]} ${words[i]}`);
  return pairs;
}

const SPDX_TAG = /SPDX-License-Identifier:\s*([A-Za-z0-9.+\-() ]{1,120})/;

/**
 * The SPDX id of a licence text: an explicit identifier line, else the best candidate at or above
 * MATCH, else `NOASSERTION` (a licence file we do not recognise).
 */
export function identifyLicence(text: string): string {
  const tag = SPDX_TAG.exec(text.slice(0, 4096));
  if (tag) return tag[1]!.trim();
  templates ??= load();
  const mine = pairsOf(text.slice(0, LICENCE_BYTES));
  if (mine.size === 0) return 'NOASSERTION';
  if (mine.size < NOTICE_WORDS) {
    const title = (/^\s*(.{1,120})/.exec(text)?.[1] ?? '').trim().toLowerCase();
    const named = templates.find(
      (t) => t.name === title || t.id.toLowerCase() === title || `${t.id} license` === title,
    );
    if (named) return named.id;
  }
  let best = { id: 'NOASSERTION', score: 0 };
  for (const t of templates) {
    // the Dice bound from the sizes alone: skip what cannot beat the best so far
    const bound = (2 * Math.min(mine.size, t.pairs.size)) / (mine.size + t.pairs.size);
    if (bound < Math.max(MATCH, best.score)) continue;
    let shared = 0;
    const [small, large] = mine.size < t.pairs.size ? [mine, t.pairs] : [t.pairs, mine];
    for (const p of small) if (large.has(p)) shared++;
    const score = (2 * shared) / (mine.size + t.pairs.size);
    if (score > best.score) best = { id: t.id, score };
  }
  return best.score >= MATCH ? best.id : 'NOASSERTION';
}

/** File names that hold a licence: LICENSE, LICENCE, COPYING, UNLICENSE, with suffixes. */
export const LICENCE_FILE =
  /^(?:un)?licen[cs]e(?:[-._][a-z0-9.-]{1,20})?$|^copying(?:[-._][a-z0-9.-]{1,20})?$/i;

/** A manifest's licence field as an SPDX expression (`MIT`, `MIT OR Apache-2.0`), else undefined. */
export function spdxExpression(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().replace(/\s*\/\s*/g, ' OR ');
  return /^[A-Za-z0-9.+\-() ]{1,120}$/.test(s) && /[A-Za-z]/.test(s) ? s : undefined;
}
