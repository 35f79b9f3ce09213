import type { Finding } from './types.js';

/**
 * What a file is, judged from its path and its first bytes, beside the native-executable sniffing
 * of content.ts: git hooks (code that git runs on the buyer's machine) and compiled bytecode.
 *
 * The rule (docs/scan-content-rules.md): native binaries and bytecode are refused anywhere, because
 * a buyer cannot review them; the one exception is a Java archive (`.jar`, `.war`, `.ear`, `.aar`)
 * vendored under a test, fixture, vendor or library folder, or a build tool's wrapper jar, which is
 * opened as a nested archive like any zip (so it must be a well-formed zip, and everything in it is
 * scanned in turn); the `.class` files inside such a jar are accepted, nothing native is.
 */

/** Folders where a vendored jar is expected: tests, fixtures, vendored and library folders. */
const JAR_FOLDER =
  /(?:^|\/)(?:test|tests|__tests__|spec|specs|fixtures?|testdata|test-data|test_data|vendor|vendored|third[-_]party|libs?|gradle\/wrapper|\.mvn\/wrapper)\//i;
const JAR_EXT = /\.(?:jar|war|ear|aar)$/i;
const PYC_EXT = /\.py[co]$/i;
const CLASS_EXT = /\.class$/i;
const DEX_EXT = /\.dex$/i;
/** Cheap first look: only these paths can get a finding here. */
const MAYBE = /\.(?:py[co]|class|dex|jar|war|ear|aar)$|\.git\/(?:.+\/)?hooks\//i;
/** A hook of a repository, of its submodules or worktrees, or of a bare repository (`x.git/`). */
const GIT_HOOK = /(?:^|\/)[^/]*\.git\/(?:(?:modules|worktrees)\/(?:[^/]+\/)+)?hooks\/([^/]+)$/i;

/** The path inside the innermost archive, and whether an enclosing archive is an accepted jar. */
function innermost(path: string): { inner: string; inAcceptedJar: boolean } {
  const parts = path.split('!/');
  const inner = parts[parts.length - 1]!;
  const inAcceptedJar = parts.slice(0, -1).some((p) => JAR_EXT.test(p) && JAR_FOLDER.test(p));
  return { inner, inAcceptedJar };
}

/** A finding from the entry's path alone, before any byte is read. */
export function pathFinding(path: string): Finding | undefined {
  if (!MAYBE.test(path)) return undefined;
  const { inner, inAcceptedJar } = innermost(path);
  const hook = GIT_HOOK.exec(inner);
  if (hook && !hook[1]!.endsWith('.sample'))
    return { check: 'git_hook', file: path, detail: hook[1]! };
  if (PYC_EXT.test(inner)) return { check: 'bytecode', file: path, detail: 'pyc' };
  if (DEX_EXT.test(inner)) return { check: 'bytecode', file: path, detail: 'dex' };
  if (CLASS_EXT.test(inner) && !inAcceptedJar)
    return { check: 'bytecode', file: path, detail: 'java_class' };
  if (JAR_EXT.test(inner) && !JAR_FOLDER.test(inner))
    return { check: 'bytecode', file: path, detail: 'jar_outside_vendor_folder' };
  return undefined;
}

/**
 * Bytecode recognised by its magic bytes, whatever the extension: CPython's `.pyc` (a 16-bit
 * version magic then `\r\n`), a Java class file (`CAFEBABE` then a class-file version; the same
 * magic with a small count is a Mach-O fat binary, which content.ts reports as an executable).
 * `undefined` also when the file is a class inside an accepted jar.
 */
export function bytecodeMagic(b: Buffer, path: string): string | undefined {
  if (b.length >= 4 && b[2] === 0x0d && b[3] === 0x0a) {
    const magic = b.readUInt16LE(0);
    if ((magic >= 3000 && magic < 4000) || (magic >= 62000 && magic < 62300)) return 'pyc';
  }
  if (b.length >= 8 && b.readUInt32BE(0) === 0xcafebabe) {
    const major = b.readUInt16BE(6);
    if (major >= 45 && major < 100 && !innermost(path).inAcceptedJar) return 'java_class';
  }
  if (b.length >= 8 && b.toString('latin1', 0, 4) === 'dex\n') return 'dex';
  return undefined;
}

/**
 * A repository's own configuration files: `.git/config` at any depth, the configs of its
 * submodules and worktrees (`.git/modules/<name>/config`, `config.worktree`), and a bare
 * repository's (`<name>.git/config`), in any case (case-insensitive filesystems). Git reads them
 * when run inside the folder (`git status`).
 */
const GIT_CONFIG_PATH =
  /(?:^|\/)[^/]*\.git\/(?:(?:modules|worktrees)\/(?:[^/]+\/)+)?config(?:\.worktree)?$/i;

export function isGitConfig(path: string): boolean {
  const lower = path.slice(-15).toLowerCase();
  if (!lower.endsWith('config') && !lower.endsWith('config.worktree')) return false;
  return GIT_CONFIG_PATH.test(innermost(path).inner);
}

/**
 * A file whose one line names a repository folder: a `.git` file (a submodule's or worktree's
 * checkout: `gitdir: <path>`), and inside a repository's folder `commondir` (the shared repository
 * of a worktree: `.git/worktrees/<name>/commondir`, `../..`) and a worktree's `gitdir` (its
 * checkout's `.git` file: `.git/worktrees/<name>/gitdir`), both bare paths.
 */
const GIT_FILE = /(?:^|\/)\.git$/i;
const GIT_POINTER =
  /(?:^|\/)[^/]*\.git\/(?:(?:modules|worktrees)\/(?:[^/]+\/)+)?(commondir|gitdir)$/i;

export function isGitFile(path: string): boolean {
  const inner = innermost(path).inner;
  return GIT_FILE.test(inner) || GIT_POINTER.test(inner);
}

/**
 * Where a `.git` file's `gitdir:` or a `commondir` may lead: a repository folder of the same archive
 * whose config and hooks the scan checks (GIT_CONFIG_PATH, GIT_HOOK): `<x>/.git`, `<name>.git`, or
 * a submodule's or worktree's folder under one (`.git/modules/<name>`, `.git/worktrees/<name>`).
 */
const GIT_DIR_TARGET = /(?:^|\/)[^/]*\.git(?:\/(?:modules|worktrees)(?:\/[^/]+)+)?$/i;

/**
 * Where a path written in a repository file leads from the folder `from` (segments inside the
 * innermost archive), or why it is refused: an absolute path (another user's repository, `~`, a
 * drive) or one climbing out of the archive. Backslashes count as separators (Git for Windows).
 */
function gitTarget(
  from: string[],
  written: string,
): { at: string } | { refused: 'absolute_path' | 'outside_archive' } {
  const target = written.replaceAll('\\', '/');
  if (target.startsWith('/') || target.startsWith('~') || /^[A-Za-z]:/.test(target))
    return { refused: 'absolute_path' };
  const parts = [...from];
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') parts.push(seg);
    else if (parts.pop() === undefined) return { refused: 'outside_archive' };
  }
  return { at: parts.join('/') };
}

/**
 * What a repository pointer's line makes git do that is refused, or undefined. Git follows a `.git`
 * file's `gitdir:` and a worktree's `commondir` on `git status` and reads the config and hooks
 * there: an absolute path, a path climbing out of the archive, or one to an archive folder outside a
 * repository's own tree (a config there is never checked) is refused. A worktree's `gitdir` file
 * names the checkout git may prune or repair: absolute or outside the archive is refused. Relative
 * paths start at the file's folder; judged within the innermost archive.
 */
export function gitFileLine(path: string, text: string): string | undefined {
  const inner = innermost(path).inner;
  const from = inner.split('/').slice(0, -1);
  const pointer = GIT_POINTER.exec(inner);
  if (pointer) {
    const written = text.replace(/\r$/, '').trim();
    if (written === '') return undefined;
    const to = gitTarget(from, written);
    if ('refused' in to) return to.refused;
    const common = pointer[1]!.toLowerCase() === 'commondir';
    return common && !GIT_DIR_TARGET.test(to.at) ? 'outside_git_dir' : undefined;
  }
  const m = /^\s*gitdir\s*:\s*(.*?)\s*$/i.exec(text);
  if (!m) return undefined;
  const to = gitTarget(from, m[1]!);
  if ('refused' in to) return to.refused;
  return GIT_DIR_TARGET.test(to.at) ? undefined : 'outside_git_dir';
}

/**
 * A config's `core.worktree` (the checkout git works on, relative to the repository folder the
 * config is in, `.git/modules/<name>` for a submodule): absolute or climbing out of the archive is
 * refused like a `.git` file's `gitdir:`, else undefined.
 */
function worktreeValue(configPath: string, value: string): string | undefined {
  let v = value.replace(/\s[#;].*$/, '').trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
  if (v === '') return undefined;
  const inner = innermost(configPath).inner;
  const to = gitTarget(inner.split('/').slice(0, -1), v);
  return 'refused' in to ? to.refused : undefined;
}

/**
 * The keys a shipped repository's config may set, by section: what `git init`, `git clone` and
 * `git submodule add` write, and settings of the same kind (line endings, names). `*` marks a
 * section that takes a subsection name (`[remote "origin"]`), without it one that takes none.
 * Every other key is refused: git runs commands from many (`core.fsmonitor`, `core.gitProxy`,
 * `filter.*.clean`, `diff.*.textconv`, `merge.*.driver`, `credential.helper`, `include.path`…).
 */
const GIT_CONFIG_ALLOWED: Record<string, readonly string[]> = {
  core: [
    'repositoryformatversion',
    'filemode',
    'bare',
    'logallrefupdates',
    'ignorecase',
    'precomposeunicode',
    'symlinks',
    'autocrlf',
    'safecrlf',
    'eol',
    'worktree',
    'quotepath',
  ],
  'remote.*': ['url', 'pushurl', 'fetch', 'push', 'tagopt', 'mirror', 'prune'],
  'branch.*': ['remote', 'merge', 'rebase', 'pushremote'],
  'submodule.*': ['url', 'active', 'branch'],
  user: ['name', 'email'],
  pull: ['rebase', 'ff'],
  init: ['defaultbranch'],
  extensions: ['objectformat', 'worktreeconfig'],
};

/** `[section]`, `[section "subsection"]` or `[section.subsection]`, then maybe a key on the line. */
const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]\s*(.*)$/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/;

/**
 * The lines of one git config file in order: each key is judged with the section it is in.
 * `line` returns what is refused (`section.key` or `unparsed_line`) or undefined; `pointer` what a
 * `core.worktree` leading out of the archive is refused as (`gitFileLine`'s kinds) or undefined.
 */
export class GitConfigLines {
  private section = '';

  /** `path`: the config's path in the archive (relative worktrees start at its folder). */
  constructor(private readonly path = 'config') {}

  /** Asked after `line` on the same text (the section is then the line's). */
  pointer(text: string): string | undefined {
    if (this.section !== 'core') return undefined;
    const kv = KEY.exec(text.replace(/^\s*\[\s*core\s*\]/i, ''));
    return kv && kv[1]!.toLowerCase() === 'worktree' && kv[2] !== undefined
      ? worktreeValue(this.path, kv[2])
      : undefined;
  }

  line(text: string): string | undefined {
    let rest = text;
    const header = SECTION.exec(text);
    if (header) {
      const name = header[1]!.toLowerCase();
      const dot = name.indexOf('.');
      const sub = header[2] !== undefined || dot > 0;
      this.section = `${dot > 0 ? name.slice(0, dot) : name}${sub ? '.*' : ''}`;
      rest = header[3]!;
    }
    const t = rest.trimStart();
    if (t === '' || t.startsWith('#') || t.startsWith(';')) return undefined;
    const kv = KEY.exec(rest);
    if (!kv) return 'unparsed_line';
    const key = kv[1]!.toLowerCase();
    const shown = this.section ? `${this.section.replace('.*', '')}.${key}` : key;
    return GIT_CONFIG_ALLOWED[this.section]?.includes(key) ? undefined : shown;
  }
}
