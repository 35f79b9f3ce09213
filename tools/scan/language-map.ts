import { readFileSync, writeFileSync } from 'node:fs';
import * as linguist from 'linguist-languages';
import { LANGUAGE_MAP_FILE, type LanguageMap } from '../../src/scan/languages.js';

/**
 * `npx tsx tools/scan/language-map.ts`: writes assets/scan/languages.json, the preview's file
 * name → language map, from GitHub Linguist's own data (`linguist-languages`, a dev dependency).
 * Importing that package at run time costs ~0.5 s and ~28 MB of resident memory (833 modules) in
 * the scan worker; the map it yields is ~40 KB. test/unit/scan-preview.test.ts fails when the
 * committed map and the installed package disagree (run this after upgrading the package).
 *
 * Where an extension belongs to several languages (`.h`: C, C++, Objective-C; `.md`: Markdown,
 * GCC Machine Description), the commonly used one wins: the first of PREFERRED that claims it,
 * else a language whose primary (first) extension it is, else the first by name.
 */
const PREFERRED = [
  'TypeScript',
  'JavaScript',
  'Python',
  'Go',
  'Rust',
  'Java',
  'Kotlin',
  'C',
  'C++',
  'C#',
  'Objective-C',
  'Ruby',
  'PHP',
  'Swift',
  'Shell',
  'HTML',
  'CSS',
  'SCSS',
  'Markdown',
  'JSON',
  'YAML',
  'TOML',
  'XML',
  'SQL',
  'Perl',
  'Scala',
  'Dart',
  'Elixir',
  'Haskell',
  'Lua',
  'R',
  'Solidity',
  'Vue',
  'Dockerfile',
  'Makefile',
  'Text',
];

type Entry = {
  name: string;
  type: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
};

export function buildLanguageMap(): LanguageMap {
  const all = Object.values(linguist as unknown as Record<string, Entry>);
  const rank = (l: Entry, key: string) => {
    const p = PREFERRED.indexOf(l.name);
    if (p >= 0) return p;
    return l.extensions?.[0]?.toLowerCase() === key ? PREFERRED.length : PREFERRED.length + 1;
  };
  const better = (a: Entry | undefined, b: Entry, key: string) =>
    !a || rank(b, key) < rank(a, key) || (rank(b, key) === rank(a, key) && b.name < a.name);
  const ext = new Map<string, Entry>();
  const names = new Map<string, Entry>();
  for (const l of all) {
    for (const e of l.extensions ?? []) {
      const key = e.toLowerCase();
      if (better(ext.get(key), l, key)) ext.set(key, l);
    }
    for (const f of l.filenames ?? []) if (better(names.get(f), l, '')) names.set(f, l);
  }
  const used = [...new Set([...ext.values(), ...names.values()])].sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  const index = new Map(used.map((l, i) => [l, i]));
  const sorted = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    source: `linguist-languages ${linguistVersion()}`,
    languages: used.map((l) => [l.name, l.type]),
    extensions: Object.fromEntries(sorted(ext).map(([k, l]) => [k, index.get(l)!])),
    filenames: Object.fromEntries(sorted(names).map(([k, l]) => [k, index.get(l)!])),
  };
}

function linguistVersion(): string {
  const file = new URL('../../node_modules/linguist-languages/package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

if (process.argv[1]?.endsWith('language-map.ts')) {
  writeFileSync(LANGUAGE_MAP_FILE, `${JSON.stringify(buildLanguageMap())}\n`);
  console.log(`wrote ${LANGUAGE_MAP_FILE.pathname}`);
}
