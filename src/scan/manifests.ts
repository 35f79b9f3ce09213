import { parse as parseToml } from 'smol-toml';
import { spdxExpression } from './licences.js';

/**
 * Dependency manifests and the package names they declare, for the preview. Each parser reads a
 * manifest's text (at most MANIFEST_BYTES) and never throws: a manifest it cannot read declares
 * nothing. Versions and sources are left out; names only, at most MAX_PACKAGES per manifest.
 */
export type ManifestKind =
  'npm' | 'pip' | 'pyproject' | 'go' | 'cargo' | 'bundler' | 'maven' | 'gradle' | 'composer';

export const MANIFEST_BYTES = 256 * 1024;
export const MAX_PACKAGES = 200;

/** Folders whose manifests belong to vendored third-party code, not to the listing. */
const VENDORED = /(?:^|\/)(?:node_modules|vendor|bower_components|site-packages|\.git|target)\//;

/** The manifest kind of a path, or undefined. */
export function manifestKind(path: string): ManifestKind | undefined {
  if (VENDORED.test(path)) return undefined;
  const base = path.slice(path.lastIndexOf('/') + 1);
  switch (base) {
    case 'package.json':
      return 'npm';
    case 'pyproject.toml':
      return 'pyproject';
    case 'go.mod':
      return 'go';
    case 'Cargo.toml':
      return 'cargo';
    case 'Gemfile':
      return 'bundler';
    case 'pom.xml':
      return 'maven';
    case 'build.gradle':
    case 'build.gradle.kts':
      return 'gradle';
    case 'composer.json':
      return 'composer';
  }
  if (/^requirements[\w.-]*\.txt$/i.test(base) || /(?:^|\/)requirements\/[\w.-]+\.txt$/.test(path))
    return 'pip';
  return undefined;
}

export interface ParsedManifest {
  packages: string[];
  /** The licence the manifest declares (package.json, Cargo.toml, pyproject.toml, composer.json). */
  license?: string;
  /** A test runner named by the manifest's test command (`node --test`). */
  testRunner?: string;
}

const keys = (v: unknown): string[] =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** The name of a PEP 508 requirement (`requests[socks]>=2; python_version<"3.8"` → requests). */
const pep508 = (s: unknown) =>
  typeof s === 'string' ? /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(s)?.[1] : undefined;

/**
 * Control characters, bidi overrides and invisible marks: no ecosystem's package name holds one,
 * a NUL cannot be stored in the preview's jsonb, and the others would show a buyer disguised text.
 * Nor can half a surrogate pair (`"\ud800"` in a JSON manifest).
 */
const NOT_IN_A_NAME =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function parseManifest(kind: ManifestKind, text: string): ParsedManifest {
  try {
    const out = PARSERS[kind](text);
    const packages = [
      ...new Set(out.packages.filter((p) => p && p.length <= 214 && !NOT_IN_A_NAME.test(p))),
    ];
    return { ...out, packages: packages.slice(0, MAX_PACKAGES) };
  } catch {
    return { packages: [] };
  }
}

const PARSERS: Record<ManifestKind, (text: string) => ParsedManifest> = {
  npm(text) {
    const j = obj(JSON.parse(text));
    const packages = [
      'dependencies',
      'devDependencies',
      'peerDependencies',
      'optionalDependencies',
    ].flatMap((k) => keys(j[k]));
    const license = spdxExpression(j.license) ?? spdxExpression(obj(j.license).type);
    const test = obj(j.scripts).test;
    const testRunner =
      typeof test === 'string' ? /\b(?:node|tsx|bun) (?:[\w-]+ )*--test\b/.test(test) : false;
    return {
      packages,
      ...(license && { license }),
      ...(testRunner && { testRunner: 'node:test' }),
    };
  },
  composer(text) {
    const j = obj(JSON.parse(text));
    const packages = [...keys(j.require), ...keys(j['require-dev'])].filter(
      (p) => p !== 'php' && !p.startsWith('ext-') && !p.startsWith('lib-'),
    );
    const lic = Array.isArray(j.license) ? j.license.join(' OR ') : j.license;
    const license = spdxExpression(lic);
    return { packages, ...(license && { license }) };
  },
  pip(text) {
    const packages: string[] = [];
    for (const raw of text.split('\n')) {
      const line = raw.replace(/(?:^|\s)#.*$/, '').trim();
      if (!line || line.startsWith('-')) continue;
      const name = pep508(line);
      if (name && !/^(?:https?|git|file)$/i.test(name)) packages.push(name);
    }
    return { packages };
  },
  pyproject(text) {
    const t = obj(parseToml(text));
    const project = obj(t.project);
    const poetry = obj(obj(t.tool).poetry);
    const packages = [
      ...(Array.isArray(project.dependencies) ? project.dependencies : []),
      ...Object.values(obj(project['optional-dependencies'])).flatMap((v) =>
        Array.isArray(v) ? v : [],
      ),
      ...Object.values(obj(t['dependency-groups'])).flatMap((v) => (Array.isArray(v) ? v : [])),
    ]
      .map(pep508)
      .filter((n): n is string => !!n);
    packages.push(
      ...keys(poetry.dependencies),
      ...keys(poetry['dev-dependencies']),
      ...Object.values(obj(poetry.group)).flatMap((g) => keys(obj(g).dependencies)),
    );
    const license =
      spdxExpression(project.license) ??
      spdxExpression(obj(project.license).text) ??
      spdxExpression(poetry.license);
    return { packages: packages.filter((p) => p !== 'python'), ...(license && { license }) };
  },
  go(text) {
    const packages: string[] = [];
    let block = false;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (block) {
        if (line.startsWith(')')) block = false;
        else if (line && !line.startsWith('//') && !/\/\/\s*indirect/.test(line))
          packages.push(line.split(/\s+/)[0]!);
      } else if (/^require\s*\($/.test(line)) block = true;
      else {
        const m = /^require\s+(\S+)\s+\S+/.exec(line);
        if (m && !/\/\/\s*indirect/.test(line)) packages.push(m[1]!);
      }
    }
    return { packages };
  },
  cargo(text) {
    const t = obj(parseToml(text));
    const sections = (o: Record<string, unknown>) => [
      ...keys(o.dependencies),
      ...keys(o['dev-dependencies']),
      ...keys(o['build-dependencies']),
    ];
    const packages = [
      ...sections(t),
      ...keys(obj(t.workspace).dependencies),
      ...Object.values(obj(t.target)).flatMap((v) => sections(obj(v))),
    ];
    const license = spdxExpression(obj(t.package).license);
    return { packages, ...(license && { license }) };
  },
  bundler(text) {
    const packages = [...text.matchAll(/^\s*gem\s+["']([A-Za-z0-9_.-]{1,100})["']/gm)].map(
      (m) => m[1]!,
    );
    return { packages };
  },
  maven(text) {
    const packages: string[] = [];
    const body = text.replace(/<!--[\s\S]*?-->/g, '');
    for (const part of body.split('<dependency>').slice(1)) {
      const end = part.indexOf('</dependency>');
      const dep = end >= 0 ? part.slice(0, end) : part;
      const g = /<groupId>\s*([^<\s]{1,200})\s*<\/groupId>/.exec(dep)?.[1];
      const a = /<artifactId>\s*([^<\s]{1,200})\s*<\/artifactId>/.exec(dep)?.[1];
      if (a) packages.push(g ? `${g}:${a}` : a);
    }
    return { packages };
  },
  gradle(text) {
    const packages = [
      ...text.matchAll(
        /\b(?:implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|testCompileOnly|kapt|ksp|annotationProcessor|compile|testCompile)\s*\(?\s*["']([\w.-]{1,200}):([\w.-]{1,200})(?::[^"']{0,100})?["']/g,
      ),
    ].map((m) => `${m[1]}:${m[2]}`);
    return { packages };
  },
};

/** Test frameworks by the package a manifest declares (exact names, or a group:artifact prefix). */
const FRAMEWORKS: [RegExp, string][] = [
  [/^vitest$/, 'vitest'],
  [/^jest$/, 'jest'],
  [/^mocha$/, 'mocha'],
  [/^ava$/, 'ava'],
  [/^tap$/, 'tap'],
  [/^jasmine(?:-core)?$/, 'jasmine'],
  [/^@playwright\/test$/, 'playwright'],
  [/^cypress$/, 'cypress'],
  [/^pytest$/, 'pytest'],
  [/^nose2?$/, 'nose'],
  [/^rspec(?:-core)?$/, 'rspec'],
  [/^minitest$/, 'minitest'],
  [/^(?:junit:junit|org\.junit[\w.]*:[\w.-]+)$/, 'junit'],
  [/^org\.testng:testng$/, 'testng'],
  [/^io\.kotest:/, 'kotest'],
  [/^phpunit\/phpunit$/, 'phpunit'],
  [/^pestphp\/pest$/, 'pest'],
];

export function frameworkOf(pkg: string): string | undefined {
  for (const [re, name] of FRAMEWORKS) if (re.test(pkg)) return name;
  return undefined;
}

/** Paths of test files: test folders and the usual test file names of each ecosystem. */
const TEST_PATH =
  /(?:^|\/)(?:tests?|__tests__|spec|specs)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|_test\.(?:go|py|rb|exs)$|(?:^|\/)test_[^/]+\.py$|_spec\.rb$|(?:Test|Tests|Spec)\.(?:java|kt|cs|swift|scala|php)$/;

export const isTestPath = (path: string) => TEST_PATH.test(path);
