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
const MAYBE = /\.(?:py[co]|class|dex|jar|war|ear|aar)$|\.git\/hooks\//i;
const GIT_HOOK = /(?:^|\/)\.git\/hooks\/([^/]+)$/;

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

/** `.git/config` keys that make git run a command: refused in a shipped repository. */
const GIT_CONFIG_EXEC =
  /^\s*(fsmonitor|hookspath|sshcommand|askpass|editor|pager|gpg\.?program)\s*=/i;

export function isGitConfig(path: string): boolean {
  if (!path.endsWith('/config') && path !== '.git/config') return false;
  return /(?:^|\/)\.git\/config$/.test(innermost(path).inner);
}

/** The key of a `.git/config` line that makes git run a command, or undefined. */
export function gitConfigExec(line: string): string | undefined {
  const m = GIT_CONFIG_EXEC.exec(line);
  return m ? m[1]!.toLowerCase() : undefined;
}
