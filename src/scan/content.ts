import {
  bytecodeMagic,
  GitConfigLines,
  gitFileLine,
  isGitConfig,
  isGitFile,
  pathFinding,
} from './binaries.js';
import { FileCode } from './code-rules.js';
import { Sketch } from './fingerprint.js';
import {
  CargoBuildScripts,
  CargoManifestLines,
  FileInstall,
  installFileKind,
  RS_MARKER,
  type HeldHit,
} from './install-hooks.js';
import type { FilePreview, PreviewCollector } from './preview.js';
import { FileSecrets, type SecretHit } from './secrets.js';
import {
  ScanRejection,
  unsafe,
  type EntrySink,
  type Finding,
  type ScanLimits,
  type ScanStats,
} from './types.js';

/** Extensions (and a few exact names) that count as source code for the complexity rule. */
const SOURCE_EXT = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs py pyi rb go rs java kt kts scala swift c h cc cpp cxx hpp hh cs fs fsx ' +
    'php pl pm lua r jl dart ex exs erl hrl hs ml mli clj cljs sh bash zsh fish ps1 sql vue svelte astro ' +
    'html htm css scss sass less sol zig nim cr v elm groovy gradle tf hcl m mm proto graphql gql asm s ' +
    'cmake mk nix'
  ).split(' '),
);
const SOURCE_NAMES = new Set([
  'makefile',
  'dockerfile',
  'rakefile',
  'gemfile',
  'justfile',
  'cmakelists.txt',
]);
const EXECUTABLE_EXT = /\.(exe|dll|so|dylib|msi|scr|sys|cpl|ocx)(\.\d+)*$/i;
const NESTED_EXT = /\.(zip|jar|war|ear|apk|whl|nupkg|tgz|tar\.gz|gz|tar)$/i;

export function isSourcePath(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (SOURCE_NAMES.has(base)) return true;
  const dot = base.lastIndexOf('.');
  return dot > 0 && SOURCE_EXT.has(base.slice(dot + 1));
}

/** Nested archive scanner, injected to break the module cycle archive → content → archive. */
export type NestedScanner = (bytes: Buffer, path: string, depth: number) => Promise<void>;

/**
 * State shared by every entry of one scan (including nested archives): limits, running totals,
 * content findings, and the line hashes that feed the complexity rule and the fingerprint.
 */
export class ScanContext {
  readonly stats: ScanStats = {
    entries: 0,
    files: 0,
    extractedBytes: 0,
    sourceFiles: 0,
    distinctSourceLines: 0,
    nestedArchives: 0,
  };
  readonly findings: Finding[] = [];
  /** MinHash sketch of the meaningful lines of every text file (near-duplicate fingerprint). */
  readonly sketch = new Sketch();
  meaningfulLines = 0;
  /** Gathers the buyer's preview of the outer archive's files (scan-job.ts asks for it). */
  preview: PreviewCollector | undefined;
  /** Build scripts Cargo manifests name (`build = "gen.rs"`), and what each other `.rs` file holds. */
  readonly cargoScripts = new CargoBuildScripts();
  /** Distinct meaningful lines of source files, collected only up to the complexity minimum. */
  readonly sourceLineHashes = new Set<number>();
  scanNested: NestedScanner = async () => {
    throw new Error('nested scanner not installed');
  };

  constructor(
    readonly limits: ScanLimits,
    readonly archiveBytes: number,
    /** Receives the outer archive's files (nested archives arrive as files, unopened). */
    readonly sink?: EntrySink,
  ) {}

  countEntry(where: string): void {
    this.stats.entries++;
    if (this.stats.entries > this.limits.maxEntries) throw unsafe('too_many_entries', where);
  }

  /** Counts inflated bytes; stops the scan the moment the total or the overall ratio is exceeded. */
  addExtracted(n: number, where: string): void {
    this.stats.extractedBytes += n;
    const total = this.stats.extractedBytes;
    if (total > this.limits.maxExtractedBytes) throw unsafe('extracted_size_limit', where);
    if (
      total > this.limits.ratioMinBytes &&
      total / Math.max(this.archiveBytes, 1) > this.limits.maxRatio
    ) {
      throw unsafe('compression_ratio', where, 'archive');
    }
  }

  addFinding(f: Finding): void {
    if (this.findings.length < 50) this.findings.push(f);
  }
}

const SNIFF_BYTES = 512;
/** A zip's end record (22 bytes) with the longest comment (65,535): where readers look for it. */
const ZIP_TAIL_BYTES = 22 + 65_535;
const EOCD = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const MAX_LINE = 64 * 1024;

type Kind = 'pending' | 'text' | 'utf16le' | 'utf16be' | 'binary' | 'nested' | 'skip';

/**
 * Looks at one file's bytes as they stream past: sniffs the type from the first bytes (native
 * executables, archives to scan in turn, archive formats we cannot scan), then, for text, walks the
 * lines for secrets and hashes the meaningful ones. Memory is bounded: one partial line (≤ 64 KiB)
 * per entry, or one nested archive of at most `maxNestedBytes`.
 */
export class EntryInspector {
  private kind: Kind = 'pending';
  private head: Buffer[] = [];
  private headLen = 0;
  private carry: Buffer | undefined;
  private lineNo = 0;
  private readonly source: boolean;
  private nested: Buffer[] = [];
  private nestedLen = 0;
  /** Content findings in this file (at most 5 are reported per file). */
  private found = 0;
  private secrets: FileSecrets | undefined;
  private code: FileCode | undefined;
  /** Files whose every line is asked: real `.env` files, install-time files, `.git/config`. */
  private readonly install: FileInstall | undefined;
  private readonly gitConfig: GitConfigLines | undefined;
  /** Files asked line by line by one narrow rule only: `.git` files, Cargo manifests, `.rs` files. */
  private readonly gitFile: boolean;
  private readonly cargoManifest: CargoManifestLines | undefined;
  /** A `.rs` file read as a build script (a manifest may name it), and its first hit. */
  private rsScript: FileInstall | undefined;
  private rsHit: HeldHit | undefined;
  /** The bytes being walked hold an RS_MARKER word (else no line of them can be a hit). */
  private rsAsk = false;
  /** Already reported as bytecode from its name (its magic bytes need not say it again). */
  private readonly bytecodeByPath: boolean;
  private everyLine: boolean;
  /** UTF-16: a byte of a code unit split across chunks, and a byte-order mark to drop. */
  private odd: Buffer | undefined;
  private skip = 0;
  private readonly out: { write(chunk: Buffer): void; end(): void } | undefined;
  private readonly preview: FilePreview | undefined;
  /** Non-blank lines (the preview's lines of code). */
  private codeLines = 0;
  /** The file's last bytes (at least ZIP_TAIL_BYTES once there are that many): see hiddenZip. */
  private tail: Buffer[] = [];
  private tailLen = 0;

  constructor(
    private readonly ctx: ScanContext,
    private readonly path: string,
    private readonly depth: number,
  ) {
    this.out = depth === 0 ? ctx.sink?.open(path) : undefined;
    this.preview = depth === 0 ? ctx.preview?.open(path) : undefined;
    this.source = isSourcePath(path);
    ctx.stats.files++;
    if (this.source) ctx.stats.sourceFiles++;
    if (EXECUTABLE_EXT.test(path))
      ctx.addFinding({ check: 'executable', file: path, detail: 'extension' });
    const byPath = pathFinding(path);
    if (byPath) ctx.addFinding(byPath);
    this.bytecodeByPath = byPath?.check === 'bytecode';
    const install = installFileKind(path);
    this.install = install && new FileInstall(install);
    this.gitConfig = isGitConfig(path) ? new GitConfigLines(path) : undefined;
    this.everyLine = !!this.install || !!this.gitConfig;
    this.gitFile = isGitFile(path);
    const base = path.slice(path.lastIndexOf('/') + 1);
    this.cargoManifest = base === 'Cargo.toml' ? new CargoManifestLines() : undefined;
    if (path.endsWith('.rs') && !install) this.rsScript = new FileInstall('cargo_build');
    if (path.includes('.env') && ENV_LIKE.test(path)) {
      this.secrets = new FileSecrets(path);
      this.everyLine ||= this.secrets.realEnv;
    }
  }

  write(chunk: Buffer): void {
    this.out?.write(chunk);
    this.preview?.write(chunk);
    this.keepTail(chunk);
    if (this.kind === 'pending') {
      this.head.push(chunk);
      this.headLen += chunk.length;
      if (this.headLen < SNIFF_BYTES) return;
      this.decide();
      return;
    }
    this.route(chunk);
  }

  async end(): Promise<void> {
    this.out?.end();
    if (this.kind === 'pending') this.decide();
    if (this.kind !== 'binary' && this.kind !== 'nested' && this.carry)
      this.lines(this.carry, this.carry.length, true);
    this.carry = undefined;
    if (this.rsHit && !this.ctx.cargoScripts.isNamed(this.path))
      this.ctx.cargoScripts.hold(this.path, this.rsHit);
    const held = this.found < 5 ? this.secrets?.end() : undefined;
    if (held) this.report(held.rule, held.line, held.kind);
    this.preview?.end(
      this.kind === 'pending' || this.kind === 'skip' ? 'other' : this.kind,
      this.codeLines,
    );
    if (this.kind !== 'nested' && this.hiddenZip())
      throw unsafe(
        'prepended_data',
        this.path,
        'a zip archive after other bytes (a self-extracting stub or a polyglot): unzip opens it, the scan cannot',
      );
    if (this.kind === 'nested') {
      const bytes = Buffer.concat(this.nested, this.nestedLen);
      this.nested = [];
      if (this.depth + 1 > this.ctx.limits.maxNestingDepth)
        throw unsafe('nesting_too_deep', this.path);
      this.ctx.stats.nestedArchives++;
      await this.ctx.scanNested(bytes, this.path, this.depth + 1);
    }
  }

  private keepTail(chunk: Buffer): void {
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tail.length > 1 && this.tailLen - this.tail[0]!.length >= ZIP_TAIL_BYTES)
      this.tailLen -= this.tail.shift()!.length;
  }

  /**
   * A file that does not start as an archive but ends as a zip does: a zip end-of-central-directory
   * record whose comment runs exactly to the end of the file, in the last 65,557 bytes, where
   * unzip, Python's zipfile and Java look for it (bytes before the first entry are allowed there).
   * Sniffed by its first bytes as text or binary, its entries (a key, an executable, a link)
   * would go unread. A text file cannot hold the record's 0x05 0x06 bytes; in random binary data
   * a record whose comment length also matches is a 1 in 2^48 chance per position.
   */
  private hiddenZip(): boolean {
    if (this.tailLen < 22) return false;
    const b = this.tail.length === 1 ? this.tail[0]! : Buffer.concat(this.tail, this.tailLen);
    this.tail = [];
    const stop = Math.max(0, b.length - ZIP_TAIL_BYTES);
    for (let i = b.lastIndexOf(EOCD, b.length - 22); i >= stop; i = b.lastIndexOf(EOCD, i - 1)) {
      if (i + 22 + b.readUInt16LE(i + 20) === b.length) return true;
      if (i === 0) break;
    }
    return false;
  }

  private decide(): void {
    // One chunk (a whole small entry) is looked at as it is: no copy.
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head, this.headLen);
    this.head = [];
    this.kind = this.classify(head);
    if (head.length) this.route(head);
  }

  private classify(b: Buffer): Kind {
    const u32be = b.length >= 4 ? b.readUInt32BE(0) : 0;
    if (b.length >= 4 && u32be === 0x7f454c46) return this.executable('elf');
    if (b.length >= 2 && b[0] === 0x4d && b[1] === 0x5a && this.isPe(b))
      return this.executable('pe');
    if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(u32be))
      return this.executable('mach-o');
    if (u32be === 0xcafebabe && b.length >= 8 && b.readUInt32BE(4) < 30)
      return this.executable('mach-o-fat');
    const bytecode = bytecodeMagic(b, this.path);
    if (bytecode) {
      if (!this.bytecodeByPath)
        this.ctx.addFinding({ check: 'bytecode', file: this.path, detail: bytecode });
      return 'binary';
    }
    // Archives we scan in turn: zip (local header or empty-archive record), gzip, plain tar.
    const zipMagic = u32be === 0x504b0304 || u32be === 0x504b0506;
    const gzipMagic = b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
    const tarMagic = b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';
    if (zipMagic || gzipMagic || tarMagic || (NESTED_EXT.test(this.path) && b.length > 0)) {
      if (!zipMagic && !gzipMagic && !tarMagic) throw unsafe('unrecognised_archive', this.path);
      return 'nested';
    }
    // Archive formats the scan cannot open: refused rather than waved through.
    if (b.length >= 6 && b.readUInt32BE(0) === 0x377abcaf && b.readUInt16BE(4) === 0x271c)
      throw unsafe('unscannable_archive', this.path, '7z');
    if (b.toString('latin1', 0, 4) === 'Rar!')
      throw unsafe('unscannable_archive', this.path, 'rar');
    if (b.length >= 6 && b.toString('latin1', 0, 6) === '\xfd7zXZ\x00')
      throw unsafe('unscannable_archive', this.path, 'xz');
    if (b.length >= 10 && /^BZh[1-9]1AY&SY$/.test(b.toString('latin1', 0, 10)))
      throw unsafe('unscannable_archive', this.path, 'bzip2');
    if (u32be === 0x28b52ffd) throw unsafe('unscannable_archive', this.path, 'zstd');
    return this.textKind(b);
  }

  /**
   * Text, UTF-16 text (with a byte-order mark, or without one: zeros in every other byte beside
   * printable ASCII), text with a stray NUL (a few NULs among printable ASCII), or binary.
   */
  private textKind(b: Buffer): Kind {
    if (b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff))) {
      this.skip = 2;
      return b[0] === 0xff ? 'utf16le' : 'utf16be';
    }
    if (!b.includes(0)) return 'text';
    const n = b.length & ~1;
    let zeros = [0, 0];
    let printable = [0, 0];
    for (let i = 0; i < n; i++) {
      const c = b[i]!;
      if (c === 0) zeros[i & 1]!++;
      else if (TEXT_BYTE[c]) printable[i & 1]!++;
    }
    const pairs = n / 2;
    for (const [order, z] of [
      ['utf16le', 1],
      ['utf16be', 0],
    ] as const) {
      if (
        zeros[z]! >= pairs * 0.7 &&
        printable[1 - z]! >= pairs * 0.7 &&
        zeros[1 - z]! <= pairs * 0.05
      )
        return order;
    }
    zeros = [zeros[0]! + zeros[1]!, 0];
    printable = [printable[0]! + printable[1]!, 0];
    const nul = zeros[0]!;
    if (nul <= Math.max(2, b.length / 100) && printable[0]! >= (b.length - nul) * 0.95)
      return 'text';
    return 'binary';
  }

  private isPe(b: Buffer): boolean {
    if (b.length < 0x40) return /\.(exe|dll|sys|scr)$/i.test(this.path);
    const peOffset = b.readUInt32LE(0x3c);
    if (peOffset + 4 <= b.length) return b.readUInt32BE(peOffset) === 0x50450000;
    return true; // an MZ header whose PE header lies beyond the sniffed bytes: treat as executable
  }

  private executable(format: string): Kind {
    this.ctx.addFinding({ check: 'executable', file: this.path, detail: format });
    return 'binary';
  }

  private route(chunk: Buffer): void {
    switch (this.kind) {
      case 'text':
        this.text(chunk);
        return;
      case 'utf16le':
      case 'utf16be':
        this.utf16(chunk);
        return;
      case 'nested':
        this.nestedLen += chunk.length;
        if (this.nestedLen > this.ctx.limits.maxNestedBytes)
          throw unsafe('nested_archive_too_large', this.path);
        this.nested.push(chunk);
        return;
      default:
        return;
    }
  }

  /** UTF-16 transcoded to UTF-8 chunk by chunk (a code unit split across chunks waits). */
  private utf16(chunk: Buffer): void {
    let b = chunk;
    if (this.odd) {
      b = Buffer.concat([this.odd, chunk]);
      this.odd = undefined;
    }
    if (this.skip) {
      const n = Math.min(this.skip, b.length);
      b = b.subarray(n);
      this.skip -= n;
    }
    if (b.length & 1) {
      this.odd = Buffer.from(b.subarray(b.length - 1));
      b = b.subarray(0, b.length - 1);
    }
    if (!b.length) return;
    if (this.kind === 'utf16be') b = Buffer.from(b).swap16();
    this.text(Buffer.from(b.toString('utf16le'), 'utf8'));
  }

  /** Walks the complete lines of a chunk; a partial last line is carried to the next chunk. */
  private text(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    const lastNl = buf.lastIndexOf(10);
    if (lastNl === -1) {
      if (buf.length > MAX_LINE) this.lines(buf, buf.length, true);
      else this.carry = Buffer.from(buf);
      return;
    }
    this.lines(buf, lastNl + 1, false);
    if (lastNl + 1 < buf.length) {
      const rest = buf.subarray(lastNl + 1);
      if (rest.length > MAX_LINE) this.lines(rest, rest.length, true);
      else this.carry = Buffer.from(rest);
    }
  }

  /**
   * The lines of bytes [0, end) (`final`: the bytes end with an unterminated line). The per-byte
   * work is only what the fingerprint needs: FNV-1a over each line up to its newline, then the
   * trailing blanks are taken back out of the hash (FNV-1a steps are invertible), so each line's
   * hash is that of its trimmed bytes, as meaningfulLineHash. Everything else is asked per line,
   * touching few bytes: whether it has a letter or digit (usually within its first bytes), and
   * whether it can hold a secret (hasRun skips through a line in strides).
   */
  private lines(buf: Buffer, end: number, final: boolean): void {
    if (this.rsScript && !this.rsHit) this.rsAsk = RS_MARKER.test(buf.toString('latin1', 0, end));
    let nextDashes = buf.indexOf(DASH_RUN);
    // Words that send a line to the secret rules though it has no token run (Django's random
    // SECRET_KEY has symbols; a Firebase config's auth domain clears its public apiKey).
    let nextDjango = buf.indexOf(DJANGO_KEY);
    let nextFirebase = buf.indexOf(FIREBASE);
    // a JSON Web Key's type line has no token run; its private member may be lines away
    let nextKty = buf.indexOf(JWK_KTY_WORD);
    // Single bytes some rules need (memchr-fast): where the next one is, as for the dash run.
    let nextAt = buf.indexOf(64); // @
    let nextBackslash = buf.indexOf(92);
    let nextPipe = buf.indexOf(124); // |
    let nextAmp = buf.indexOf(38); // &
    let i = 0;
    while (i < end) {
      let c = buf[i]!;
      while (c <= 32 && c !== 10 && ++i < end) c = buf[i]!;
      if (i === end || c === 10) {
        this.lineNo++;
        i++;
        continue;
      }
      const first = i;
      this.codeLines++;
      let h = FNV_OFFSET;
      for (; i < end; i++) {
        c = buf[i]!;
        if (c === 10) break;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      let last = i - 1;
      while ((c = buf[last]!) <= 32) {
        h = Math.imul(h, FNV_PRIME_INVERSE) ^ c;
        last--;
      }
      if (last - first >= 3) {
        if (nextDashes !== -1 && nextDashes < first) nextDashes = buf.indexOf(DASH_RUN, first);
        let marked = nextDashes !== -1 && nextDashes + DASH_RUN.length <= last + 1;
        if (nextDjango !== -1 && nextDjango <= last) {
          if (nextDjango < first) nextDjango = buf.indexOf(DJANGO_KEY, first);
          marked ||= nextDjango !== -1 && nextDjango <= last;
        }
        if (nextFirebase !== -1 && nextFirebase <= last) {
          if (nextFirebase < first) nextFirebase = buf.indexOf(FIREBASE, first);
          marked ||= nextFirebase !== -1 && nextFirebase <= last;
        }
        if (nextKty !== -1 && nextKty <= last) {
          if (nextKty < first) nextKty = buf.indexOf(JWK_KTY_WORD, first);
          marked ||= nextKty !== -1 && nextKty <= last;
        }
        let cls = 0;
        if (nextAt !== -1 && nextAt <= last) {
          if (nextAt < first) nextAt = buf.indexOf(64, first);
          if (nextAt !== -1 && nextAt <= last) cls |= AT;
        }
        if (nextBackslash !== -1 && nextBackslash <= last) {
          if (nextBackslash < first) nextBackslash = buf.indexOf(92, first);
          if (nextBackslash !== -1 && nextBackslash <= last) cls |= BACKSLASH;
        }
        if (nextPipe !== -1 && nextPipe <= last) {
          if (nextPipe < first) nextPipe = buf.indexOf(124, first);
          if (nextPipe !== -1 && nextPipe <= last) cls |= PIPE;
        }
        if (nextAmp !== -1 && nextAmp <= last) {
          if (nextAmp < first) nextAmp = buf.indexOf(38, first);
          if (nextAmp !== -1 && nextAmp <= last) cls |= PIPE;
        }
        this.endLine(buf, first, last, h, marked, cls);
      }
      this.lineNo++;
      i++;
    }
    // A final line that is empty (the bytes end with a newline) still counts, as before.
    if (final && i === end) this.lineNo++;
  }

  /**
   * A finished line (trimmed bytes [first, last], 4 or more); `lineNo` still counts the lines
   * before it. Meaningful (a letter or digit) → hashed into the fingerprint; then handed to the
   * content rules when it can hold what they look for: a token run, a PEM dash run or a marker
   * word (`SECRET_KEY`, `firebaseapp.com`) (secrets,
   * encoded payloads), a phrase (mnemonics), an `@` (credentials in a URL), a backslash escape, a
   * pipe or `&` (droppers), a long line; every line of the files that ask for it.
   */
  private endLine(
    buf: Buffer,
    first: number,
    last: number,
    hash: number,
    marked: boolean,
    cls: number,
  ): void {
    const ctx = this.ctx;
    let a = first;
    while (a <= last && !ALNUM[buf[a]!]) a++;
    if (a <= last) {
      const h = hash >>> 0 || 1;
      ctx.sketch.add(h);
      ctx.meaningfulLines++;
      if (this.source && ctx.sourceLineHashes.size < ctx.limits.minSourceLines)
        ctx.sourceLineHashes.add(h);
    }
    if (this.found >= 5) return;
    if (this.gitFile || this.cargoManifest || this.rsAsk) this.narrowLine(buf, first, last);
    const tokens = marked || hasRun(buf, first, last + 1, TOKEN_CHAR, TOKEN_RUN);
    const words =
      hasRun(buf, first, last + 1, PHRASE_CHAR, PHRASE_SPAN) &&
      phraseWords(buf, first, last) >= PHRASE_WORDS;
    const long = last - first >= LONG_LINE;
    const every = this.everyLine || (this.code?.everyLine ?? false);
    if (!tokens && !words && !cls && !long && !every) return;
    const text = buf.toString('latin1', first, last + 1);
    const lineNo = this.lineNo + 1;
    const secrets = (this.secrets ??= new FileSecrets(this.path));
    const secret: SecretHit | undefined =
      (tokens && secrets.tokenLine(text, lineNo)) ||
      (words && secrets.wordLine(text, lineNo)) ||
      ((cls & AT) !== 0 && text.includes('://') && secrets.urlLine(text, lineNo)) ||
      // escapes break every token run: a key block written as `\x2d\x2d…` bytes
      ((cls & BACKSLASH) !== 0 && secrets.escapedLine(text, lineNo)) ||
      (secrets.realEnv && secrets.envLine(text, lineNo)) ||
      undefined;
    if (secret) return this.report(secret.rule, secret.line, secret.kind);
    if (this.install) {
      const hit = this.install.line(text, first > 0 && buf[first - 1] !== 10);
      if (hit) return this.report(hit.rule, lineNo, hit.kind);
    }
    if (this.gitConfig) {
      const key = this.gitConfig.line(text);
      if (key) return this.report('git_config_exec', lineNo, key);
      const pointer = this.gitConfig.pointer(text);
      if (pointer) return this.report('git_gitdir', lineNo, pointer);
    }
    const askCode =
      (tokens && hasRun(buf, first, last + 1, TOKEN_CHAR, PAYLOAD_RUN)) ||
      long ||
      every ||
      ((cls & BACKSLASH) !== 0 && ESCAPED.test(text)) ||
      ((cls & PIPE) !== 0 && DOWNLOADS.test(text));
    if (!askCode) return;
    const code = (this.code ??= new FileCode());
    const hit = code.line(text);
    if (hit) this.report(hit.rule, lineNo, hit.kind);
  }

  /** The line-by-line rules that ask only one kind of file (see the fields). */
  private narrowLine(buf: Buffer, first: number, last: number): void {
    const text = buf.toString('latin1', first, last + 1);
    const lineNo = this.lineNo + 1;
    if (this.gitFile) {
      const kind = gitFileLine(this.path, text);
      if (kind) this.report('git_gitdir', lineNo, kind);
    } else if (this.cargoManifest) {
      const named = this.cargoManifest.line(text);
      const script = named === undefined ? undefined : besideFile(this.path, named);
      if (script === undefined) return;
      if (!script.endsWith('.rs'))
        return this.report('install:cargo_build', lineNo, 'build_script_not_rs');
      const held = this.ctx.cargoScripts.name(script);
      if (held)
        this.ctx.addFinding({
          check: held.rule,
          file: script,
          line: held.line,
          detail: held.kind,
        });
    } else if (this.rsScript && !this.rsHit) {
      const hit = this.rsScript.line(text);
      if (!hit) return;
      this.rsHit = { ...hit, line: lineNo };
      this.rsAsk = false;
      if (this.ctx.cargoScripts.isNamed(this.path)) this.report(hit.rule, lineNo, hit.kind);
    }
  }

  private report(check: string, line: number, detail: string): void {
    this.found++;
    this.ctx.addFinding({ check, file: this.path, line, detail });
  }
}

/**
 * `rel` (a path a file names, `/` or `\\` separated) from the folder of `from`, within the innermost
 * archive (`outer.zip!/crate/Cargo.toml`); undefined when it is absolute or leaves that archive.
 */
function besideFile(from: string, rel: string): string | undefined {
  const nested = from.lastIndexOf('!/');
  const prefix = nested < 0 ? '' : from.slice(0, nested + 2);
  const target = rel.replaceAll('\\', '/');
  if (target.startsWith('/') || /^[A-Za-z]:/.test(target)) return undefined;
  const parts = from.slice(prefix.length).split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') parts.push(seg);
    else if (parts.pop() === undefined) return undefined;
  }
  return prefix + parts.join('/');
}

/** Paths of `.env`-style files (decided before any line: every line of a real one is asked). */
const ENV_LIKE = /(?:^|\/)(?:\.env(?:\.[^/]+)?|[^/]+\.env|\.envrc)$/i;
/** Lines longer than this are asked for droppers (one-line obfuscated payloads). */
const LONG_LINE = 160;
const ESCAPED = /\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{3})/;
const DOWNLOADS =
  /\b(?:curl|wget|iwr|Invoke-WebRequest|DownloadString|certutil|bitsadmin)\b|\/dev\/tcp/i;
/** Bytes on a line that some rules need (`@`, a backslash, `|` or `&`). */
const AT = 1;
const BACKSLASH = 2;
const PIPE = 4;
/** Printable ASCII and the usual blanks: what text is made of. */
const TEXT_BYTE = Uint8Array.from(
  { length: 256 },
  (_, c) => +((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13),
);

/*
 * Which lines reach the secret rules: those that can hold a secret. Every token rule needs a run
 * of 20+ characters of `[A-Za-z0-9+/=_-]` or a PEM dash run (-----), ordinary code rarely has
 * one; a mnemonic needs 12+ consecutive words of 3 to 8 lowercase letters (phraseWords).
 */
const TOKEN_RUN = 20;
/** A token run this long can be an encoded payload (the code rules look at it). */
const PAYLOAD_RUN = 40;
const DASH_RUN = Buffer.from('-----');
const DJANGO_KEY = Buffer.from('SECRET_KEY');
/** With its dot: found as fast as the other markers (memchr-like), unlike the bare word. */
const FIREBASE = Buffer.from('.firebaseapp.com');
const JWK_KTY_WORD = Buffer.from('kty');
const PHRASE_WORDS = 12;
/** Twelve words of 3+ letters and the 11 gaps between them. */
const PHRASE_SPAN = PHRASE_WORDS * 3 + PHRASE_WORDS - 1;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** FNV_PRIME⁻¹ mod 2³² (Newton's iteration; FNV_PRIME is odd): undoes one FNV-1a step. */
const FNV_PRIME_INVERSE = (() => {
  let x = FNV_PRIME;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(FNV_PRIME, x));
  return x;
})();

const table = (member: (c: number) => boolean) =>
  Uint8Array.from({ length: 256 }, (_, c) => +member(c));
const isAlnum = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
const isTokenSymbol = (c: number) => c === 43 || c === 45 || c === 47 || c === 61 || c === 95;
const ALNUM = table(isAlnum);
/** `[A-Za-z0-9+/=_-]`: the characters of a token run. */
const TOKEN_CHAR = table((c) => isAlnum(c) || isTokenSymbol(c));
/**
 * What a phrase is made of: lowercase letters and the gaps between words (anything but a letter,
 * a digit, a token symbol or a newline).
 */
const PHRASE_CHAR = table(
  (c) => (c >= 97 && c <= 122) || (!isAlnum(c) && !isTokenSymbol(c) && c !== 10),
);

/**
 * Whether bytes [from, to) hold a run of `len` bytes of class `member`. Looks at the last byte of
 * each window of `len` and walks back only while in the class: a byte outside it rules out every
 * window that contains it, so the search jumps past it (a few bytes read per window, not all).
 */
function hasRun(buf: Buffer, from: number, to: number, member: Uint8Array, len: number): boolean {
  let p = from;
  while (p + len <= to) {
    let j = p + len - 1;
    while (j >= p && member[buf[j]!]) j--;
    if (j < p) return true;
    p = j + 1;
  }
  return false;
}

/**
 * The longest run of phrase words on the trimmed line [first, last]: a word is a maximal run of
 * letters and digits; one of 3 to 8 lowercase letters extends the run, any other word breaks it,
 * a token symbol (`+/=_-`) breaks it, other characters (spaces, quotes, commas, …) only separate.
 * Words are measured at the separator after them: `sep` is the previous separator, `capital` the
 * last capital or digit.
 */
function phraseWords(buf: Buffer, first: number, last: number): number {
  let sep = first - 1;
  let capital = first - 2;
  let words = 0;
  let max = 0;
  for (let i = first; i <= last + 1; i++) {
    const c = i > last ? 10 : buf[i]!;
    if (c >= 97 && c <= 122) continue;
    if (isAlnum(c)) {
      capital = i;
      continue;
    }
    if (isTokenSymbol(c)) words = 0;
    else {
      const len = i - sep; // the word's length + 1
      if (len > 1) words = len > 3 && len < 10 && capital < sep ? words + 1 : 0;
      if (words > max) max = words;
    }
    sep = i;
  }
  return max;
}

/**
 * FNV-1a of a line with surrounding whitespace trimmed, or 0 when the line is not meaningful:
 * shorter than 4 characters or without any letter or digit (braces, blank lines, separators).
 * (The inspector computes the same hash inline over bytes.)
 */
export function meaningfulLineHash(line: string): number {
  const buf = Buffer.from(line, 'latin1');
  let a = 0;
  let b = buf.length;
  while (a < b && buf[a]! <= 32) a++;
  while (b > a && buf[b - 1]! <= 32) b--;
  if (b - a < 4) return 0;
  let h = 0x811c9dc5;
  let alnum = false;
  for (let i = a; i < b; i++) {
    const c = buf[i]!;
    if ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122)) alnum = true;
    h ^= c;
    h = Math.imul(h, 0x01000193);
  }
  return alnum ? h >>> 0 || 1 : 0;
}

export { ScanRejection };
