import * as linguist from 'linguist-languages';

/**
 * The language of a file from its name, by GitHub Linguist's own map (the `linguist-languages`
 * package: extensions and exact file names of ~800 languages). Where an extension belongs to
 * several languages (`.h`: C, C++, Objective-C; `.md`: Markdown, GCC Machine Description), the
 * commonly used one wins: the first of PREFERRED that claims it, else a language whose primary
 * (first) extension it is, else the first by name. Linguist's own content heuristics are not run.
 */
export interface Language {
  name: string;
  /** Linguist's type: `programming` and `markup` count as code; `data` and `prose` do not. */
  type: 'programming' | 'markup' | 'data' | 'prose';
}

/** Tie-break order for ambiguous extensions: the languages listings are written in. */
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

interface Maps {
  byExtension: Map<string, Language>;
  byName: Map<string, Language>;
}

let maps: Maps | undefined;

function build(): Maps {
  type Entry = {
    name: string;
    type: Language['type'];
    extensions?: readonly string[];
    filenames?: readonly string[];
  };
  const all = Object.values(linguist as unknown as Record<string, Entry>);
  const rank = (l: Entry, ext: string) => {
    const p = PREFERRED.indexOf(l.name);
    if (p >= 0) return p;
    return l.extensions?.[0] === ext ? PREFERRED.length : PREFERRED.length + 1;
  };
  const ext = new Map<string, Entry>();
  const names = new Map<string, Entry>();
  const better = (a: Entry | undefined, b: Entry, key: string) =>
    !a || rank(b, key) < rank(a, key) || (rank(b, key) === rank(a, key) && b.name < a.name);
  for (const l of all) {
    for (const e of l.extensions ?? []) {
      const key = e.toLowerCase();
      if (better(ext.get(key), l, e)) ext.set(key, l);
    }
    for (const f of l.filenames ?? []) if (better(names.get(f), l, '')) names.set(f, l);
  }
  const lang = (l: Entry): Language => ({ name: l.name, type: l.type });
  return {
    byExtension: new Map([...ext].map(([k, l]) => [k, lang(l)])),
    byName: new Map([...names].map(([k, l]) => [k, lang(l)])),
  };
}

/** The language of `path`, or undefined when Linguist knows neither its name nor its extension. */
export function languageOf(path: string): Language | undefined {
  maps ??= build();
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
