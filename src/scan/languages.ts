import { readFileSync } from 'node:fs';

/**
 * The language of a file from its name, by GitHub Linguist's own map: assets/scan/languages.json,
 * generated from the `linguist-languages` package by tools/scan/language-map.ts (extensions and
 * exact file names of ~800 languages; ambiguous extensions resolved to the common language).
 * Linguist's content heuristics are not run.
 */
export interface Language {
  name: string;
  /** Linguist's type: `programming` and `markup` count as code; `data` and `prose` do not. */
  type: string;
}

export interface LanguageMap {
  source: string;
  /** [name, type] of each language the maps point at, by index. */
  languages: [string, string][];
  /** Lower-case extension with its dot (`.ts`) → language index. */
  extensions: Record<string, number>;
  /** Exact file name (`Dockerfile`) → language index. */
  filenames: Record<string, number>;
}

export const LANGUAGE_MAP_FILE = new URL('../../assets/scan/languages.json', import.meta.url);

let maps:
  | { byExtension: Map<string, Language>; byName: Map<string, Language>; map: LanguageMap }
  | undefined;

function load() {
  const map = JSON.parse(readFileSync(LANGUAGE_MAP_FILE, 'utf8')) as LanguageMap;
  const langs = map.languages.map(([name, type]) => ({ name, type }));
  const of = (o: Record<string, number>) =>
    new Map(Object.entries(o).map(([k, i]) => [k, langs[i]!]));
  return { byExtension: of(map.extensions), byName: of(map.filenames), map };
}

/** The language of `path`, or undefined when Linguist knows neither its name nor its extension. */
export function languageOf(path: string): Language | undefined {
  maps ??= load();
  const base = path.slice(path.lastIndexOf('/') + 1);
  const exact = maps.byName.get(base);
  if (exact) return exact;
  // longest known extension first: `.d.ts` before `.ts`, `.blade.php` before `.php`
  for (let dot = base.indexOf('.', 1); dot > 0; dot = base.indexOf('.', dot + 1)) {
    const l = maps.byExtension.get(base.slice(dot).toLowerCase());
    if (l) return l;
  }
  return undefined;
}

/** Whether a language's lines count as code (Linguist's language statistics count these). */
export const isCode = (l: Language | undefined): boolean =>
  l !== undefined && (l.type === 'programming' || l.type === 'markup');
