import { isCode, languageOf } from './languages.js';
import { identifyLicence, LICENCE_BYTES, LICENCE_FILE } from './licences.js';
import {
  frameworkOf,
  isTestPath,
  MANIFEST_BYTES,
  manifestKind,
  parseManifest,
  type ManifestKind,
} from './manifests.js';
import {
  decode,
  isTextual,
  readmeExcerpt,
  readmeRank,
  shownPath,
  type Capture,
  type Captured,
  type ReadmeExcerpt,
  type TextKind,
} from './preview-text.js';

/**
 * What a buyer may see of an archive before paying, gathered while the scan walks it (the outer
 * archive's files only; a nested archive is one file). Bounded whatever the archive holds:
 * - tree: at most PREVIEW_LIMITS.treeEntries paths with sizes (the shallowest first), plus totals;
 * - languages by non-blank lines, by Linguist's map (code: programming and markup languages);
 * - licence: SPDX id and the file it came from, or `none`;
 * - manifests: at most `manifests`, each at most MAX_PACKAGES names;
 * - tests: count of test files and the frameworks the manifests name;
 * - README excerpt: the top-level README's first `readmeLines` lines and at most `readmeBytes`
 *   bytes, HTML-escaped, control characters dropped, any line the secret rules flag redacted
 *   (./preview-text.ts).
 * Code bodies never leave it beyond the README excerpt. The collector never throws: a failure
 * makes the preview absent (`failure` says why) and the scan goes on.
 */
export const PREVIEW_LIMITS = {
  treeEntries: 500,
  /** Paths kept in memory to choose the tree from (then cut back to the shallowest 500). */
  treeKept: 2_000,
  manifests: 50,
  readmeLines: 40,
  readmeBytes: 4096,
  languages: 10,
  /** Files whose bytes are captured (README, licence and manifest candidates). */
  captures: 80,
} as const;

export interface PreviewManifest {
  path: string;
  kind: ManifestKind;
  packages: string[];
}

export interface Preview {
  files: number;
  bytes: number;
  /** Non-blank lines of code (programming and markup languages). */
  lines: number;
  tree: { entries: { path: string; size: number }[]; total: number; truncated: boolean };
  languages: { name: string; lines: number; files: number }[];
  license: { spdx: string; file: string | null };
  manifests: PreviewManifest[];
  tests: { present: boolean; files: number; frameworks: string[] };
  readme: ReadmeExcerpt | null;
}

/** The compact summary in item detail and search results. */
export interface PreviewSummary {
  files: number;
  lines: number;
  languages: string[];
  license: string;
}

export const summaryOf = (p: Preview): PreviewSummary => ({
  files: p.files,
  lines: p.lines,
  languages: p.languages.slice(0, 3).map((l) => l.name),
  license: p.license.spdx,
});

const README = /^readme(?:\.[a-z0-9]{1,10})?$/i;

export class PreviewCollector {
  failure: string | undefined;
  private files = 0;
  private bytes = 0;
  private kept: { path: string; size: number; depth: number }[] = [];
  private readonly langs = new Map<string, { lines: number; files: number }>();
  private lines = 0;
  private testFiles = 0;
  private testHints = new Set<string>();
  private captured: Captured[] = [];
  /** The folder every file so far is in (`project/`), '' when none; undefined before any file. */
  private wrap: string | undefined;

  private get root(): string {
    return this.wrap ?? '';
  }

  /** A file of the outer archive; its bytes then go to `write`, and `end` closes it. */
  open(path: string): FilePreview | undefined {
    if (this.failure) return undefined;
    try {
      return new FilePreview(this, path, this.captureOf(path));
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  fail(e: unknown): void {
    this.failure ??= e instanceof Error ? e.message : String(e);
  }

  private captureOf(path: string): Capture | undefined {
    if (this.captured.length >= PREVIEW_LIMITS.captures) return undefined;
    const base = path.slice(path.lastIndexOf('/') + 1);
    const depth = path.split('/').length - 1;
    if (depth <= 1 && README.test(base)) return 'readme';
    if (depth <= 1 && LICENCE_FILE.test(base)) return 'licence';
    if (manifestKind(path)) return 'manifest';
    return undefined;
  }

  /** @internal a finished file. */
  file(path: string, size: number, kind: TextKind, codeLines: number, capture?: Captured): void {
    this.files++;
    this.bytes += size;
    if (this.wrap === undefined) {
      const slash = path.indexOf('/');
      this.wrap = slash > 0 ? path.slice(0, slash + 1) : '';
    } else if (this.wrap && !path.startsWith(this.wrap)) this.wrap = '';
    this.kept.push({ path, size, depth: depthOf(path) });
    if (this.kept.length >= PREVIEW_LIMITS.treeKept) this.kept = shallowest(this.kept);
    const lang = kind === 'binary' || kind === 'nested' ? undefined : languageOf(path);
    if (lang && isCode(lang)) {
      const l = this.langs.get(lang.name) ?? { lines: 0, files: 0 };
      l.lines += codeLines;
      l.files++;
      this.langs.set(lang.name, l);
      this.lines += codeLines;
      if (isTestPath(path)) {
        this.testFiles++;
        if (/_test\.go$/.test(path)) this.testHints.add('go test');
      }
    }
    if (capture) this.captured.push(capture);
  }

  /** The preview, or undefined (with `failure` set) when it could not be computed. */
  result(): Preview | undefined {
    if (this.failure) return undefined;
    try {
      return this.build();
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  private build(): Preview {
    const root = this.root;
    const topLevel = (p: string) => p.startsWith(root) && !p.slice(root.length).includes('/');
    const manifests: PreviewManifest[] = [];
    const declared: { path: string; license: string }[] = [];
    const frameworks = new Set(this.testHints);
    const bySource = (a: Captured, b: Captured) =>
      depthOf(a.path) - depthOf(b.path) || byPath(a.path, b.path);
    for (const c of this.captured.filter((x) => x.what === 'manifest').sort(bySource)) {
      if (manifests.length >= PREVIEW_LIMITS.manifests) break;
      const kind = manifestKind(c.path)!;
      const parsed =
        c.truncated || c.kind !== 'text'
          ? { packages: [] }
          : parseManifest(kind, c.bytes.toString('utf8'));
      manifests.push({ path: c.path, kind, packages: parsed.packages });
      if ('testRunner' in parsed && parsed.testRunner) frameworks.add(parsed.testRunner);
      for (const p of parsed.packages) {
        const f = frameworkOf(p);
        if (f) frameworks.add(f);
      }
      if ('license' in parsed && parsed.license && topLevel(c.path))
        declared.push({ path: c.path, license: parsed.license });
    }
    if (this.testFiles && !frameworks.size) {
      const has = (k: ManifestKind) => manifests.some((m) => m.kind === k);
      if (has('cargo')) frameworks.add('cargo test');
      else if (this.langs.has('Python')) frameworks.add('unittest');
    }
    const licences = this.captured
      .filter((c) => c.what === 'licence' && topLevel(c.path) && isTextual(c.kind))
      .sort(bySource)
      .map((c) => ({ file: c.path, spdx: identifyLicence(decode(c)) }));
    const known = licences.filter((l) => l.spdx !== 'NOASSERTION');
    const license = known.length
      ? {
          spdx: [...new Set(known.map((l) => l.spdx))].join(' OR '),
          file: known[0]!.file,
        }
      : declared.length
        ? { spdx: declared[0]!.license, file: declared[0]!.path }
        : licences.length
          ? { spdx: 'NOASSERTION', file: licences[0]!.file }
          : { spdx: 'none', file: null };
    const readmes = this.captured
      .filter((c) => c.what === 'readme' && topLevel(c.path))
      .sort((a, b) => readmeRank(a.path) - readmeRank(b.path) || bySource(a, b));
    const languages = [...this.langs]
      .map(([name, l]) => ({ name, ...l }))
      .filter((l) => l.lines > 0)
      .sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name))
      .slice(0, PREVIEW_LIMITS.languages);
    const entries = shallowest(this.kept)
      .sort((a, b) => byPath(a.path, b.path))
      .map(({ path, size }) => ({ path: shownPath(path), size }));
    const readme = readmes[0] ? readmeExcerpt(readmes[0], PREVIEW_LIMITS) : null;
    return {
      files: this.files,
      bytes: this.bytes,
      lines: this.lines,
      tree: { entries, total: this.files, truncated: entries.length < this.files },
      languages,
      license: { ...license, file: license.file === null ? null : shownPath(license.file) },
      manifests: manifests.map((m) => ({ ...m, path: shownPath(m.path) })),
      tests: { present: this.testFiles > 0, files: this.testFiles, frameworks: [...frameworks] },
      readme: readme && { ...readme, path: shownPath(readme.path) },
    };
  }
}

/** One file's share of the preview: its size, its lines (counted by the scan), captured bytes. */
export class FilePreview {
  private size = 0;
  private chunks: Buffer[] = [];
  private capturedBytes = 0;
  private truncated = false;
  private readonly limit: number;

  constructor(
    private readonly collector: PreviewCollector,
    private readonly path: string,
    private readonly capture: Capture | undefined,
  ) {
    this.limit =
      capture === 'readme'
        ? PREVIEW_LIMITS.readmeBytes
        : capture === 'licence'
          ? LICENCE_BYTES
          : MANIFEST_BYTES;
  }

  write(chunk: Buffer): void {
    this.size += chunk.length;
    if (!this.capture || this.truncated) return;
    try {
      const room = this.limit - this.capturedBytes;
      if (chunk.length > room) this.truncated = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (part.length) {
        this.chunks.push(Buffer.from(part));
        this.capturedBytes += part.length;
      }
    } catch (e) {
      this.collector.fail(e);
    }
  }

  end(kind: TextKind, codeLines: number): void {
    try {
      const capture: Captured | undefined = this.capture && {
        path: this.path,
        what: this.capture,
        kind,
        bytes: Buffer.concat(this.chunks, this.capturedBytes),
        truncated: this.truncated,
      };
      this.chunks = [];
      this.collector.file(this.path, this.size, kind, codeLines, capture);
    } catch (e) {
      this.collector.fail(e);
    }
  }
}

const depthOf = (p: string) => p.split('/').length - 1;

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The tree's entries: the shallowest first, then by path, at most PREVIEW_LIMITS.treeEntries. */
function shallowest<T extends { path: string; depth: number }>(entries: T[]): T[] {
  return entries
    .sort((a, b) => a.depth - b.depth || byPath(a.path, b.path))
    .slice(0, PREVIEW_LIMITS.treeEntries);
}
