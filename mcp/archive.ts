import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import {
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import yazl from 'yazl';
import { scanArchive, type Compression } from '../src/scan/scan-archive.js';
import {
  DEFAULT_SCAN_LIMITS,
  type EntrySink,
  type Finding,
  type ScanLimits,
  type ScanOutcome,
} from '../src/scan/types.js';

/**
 * Local archive work of the MCP server, on the marketplace's own scan library: packing a project
 * directory for listing, scanning before a listing fee is paid, and unpacking a purchase with the
 * scan's rules (names, links, sizes, ratios are judged before a byte lands in the target folder).
 */

/**
 * Always left out of a packed directory, .gitignore or not: vendored dependencies, VCS data,
 * environment files and key material (the scan would refuse most of them, and they are not the
 * seller's to sell).
 */
const ALWAYS_EXCLUDED = [
  'node_modules/',
  '.git/',
  '.hg/',
  '.svn/',
  '.env',
  '.env.*',
  '*.env',
  '.envrc',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.npmrc',
  '.pypirc',
  '.netrc',
  'UTC--*',
  '.DS_Store',
];

export interface PackedArchive {
  bytes: Buffer;
  compression: Compression;
  sha256: string;
  /** Paths inside the archive. */
  files: string[];
  /** Paths left out (by .gitignore, the built-in exclusions, or because they are links). */
  excluded: string[];
}

/** Fixed entry time, so the same tree always packs to the same bytes (and the same digest). */
const EPOCH = new Date(Date.UTC(2020, 0, 1));

/**
 * Packs a directory as a .zip: every regular file below it, except what its .gitignore files
 * (at any depth, git's rules via `ignore`) and ALWAYS_EXCLUDED leave out. Symbolic links are
 * never followed. Entries are sorted and stamped with one fixed time: packing is deterministic.
 */
export async function packDirectory(root: string, maxBytes: number): Promise<PackedArchive> {
  const files: string[] = [];
  const excluded: string[] = [];
  const base = ignore().add(ALWAYS_EXCLUDED);
  const walk = async (rel: string, rules: Array<{ dir: string; ig: Ignore }>) => {
    const abs = path.join(root, rel);
    const here = [...rules];
    const gi = await readFile(path.join(abs, '.gitignore'), 'utf8').catch(() => undefined);
    if (gi !== undefined) here.push({ dir: rel, ig: ignore().add(gi) });
    const entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      const dir = e.isDirectory();
      const probe = dir ? `${p}/` : p;
      const ignored =
        base.ignores(probe) ||
        here.some(({ dir: d, ig }) => ig.ignores(d ? probe.slice(d.length + 1) : probe));
      if (ignored || e.isSymbolicLink() || !(dir || e.isFile())) {
        excluded.push(dir ? `${p}/` : p);
        continue;
      }
      if (dir) await walk(p, here);
      else files.push(p);
    }
  };
  await walk('', []);
  if (files.length === 0) throw new Error(`nothing to pack: ${root} has no files to list`);
  const zip = new yazl.ZipFile();
  let total = 0;
  for (const f of files) {
    const data = await readFile(path.join(root, f));
    total += data.length;
    const mode = ((await stat(path.join(root, f))).mode & 0o111 ? 0o755 : 0o644) | 0o100000;
    zip.addBuffer(data, f, { mtime: EPOCH, mode, compress: true, forceDosTimestamp: true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  if (bytes.length > maxBytes)
    throw new Error(
      `the packed archive is ${bytes.length} bytes (${total} before compression), above the ${maxBytes}-byte limit; leave out generated or vendored files with .gitignore`,
    );
  return { bytes, compression: 'zip', sha256: sha256(bytes), files, excluded };
}

/** An archive file as it is: .zip, .tar.gz or .tgz by its name. */
export async function readArchive(
  file: string,
  maxBytes: number,
): Promise<Omit<PackedArchive, 'files' | 'excluded'>> {
  const compression = compressionOfName(file);
  if (!compression) throw new Error(`${file} is not a .zip, .tar.gz or .tgz file`);
  const info = await lstat(file);
  if (!info.isFile()) throw new Error(`${file} is not a regular file`);
  if (info.size > maxBytes)
    throw new Error(`${file} is ${info.size} bytes, above the ${maxBytes}-byte archive limit`);
  const bytes = await readFile(file);
  return { bytes, compression, sha256: sha256(bytes) };
}

export function compressionOfName(name: string): Compression | undefined {
  const n = name.toLowerCase();
  if (n.endsWith('.zip')) return 'zip';
  if (n.endsWith('.tar.gz') || n.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The operator-level account of a refusal: check, file and line; never the offending value. */
export function describeFindings(findings: Finding[]): string[] {
  return findings.map(
    (f) =>
      `${f.check}${f.detail ? ` (${f.detail})` : ''}${f.file ? ` in ${f.file}` : ''}${f.line ? ` line ${f.line}` : ''}`,
  );
}

/** The marketplace's scan, run locally (everything but the near-duplicate rule, which needs its catalogue). */
export function precheck(
  bytes: Buffer,
  compression: Compression,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<ScanOutcome> {
  return scanArchive(bytes, compression, limits);
}

export type UnpackResult =
  { ok: true; dir: string; files: string[] } | { ok: false; reason: string; findings: string[] };

/**
 * Unpacks an archive into `target` (which must not exist yet) with the scan's rules: entries are
 * written into a hidden sibling folder as the scan inflates them, only after their names passed
 * every check (no traversal, absolute path, link, device, duplicate); the folder becomes `target`
 * only when the whole scan finds nothing unsafe, and is deleted otherwise. Files open with `wx`
 * and every resolved path must stay inside the folder, as a second guard.
 */
export async function safeUnpack(
  bytes: Buffer,
  compression: Compression,
  target: string,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<UnpackResult> {
  if (await exists(target)) throw new Error(`${target} already exists; pick another folder`);
  await mkdir(path.dirname(target), { recursive: true });
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.unpacking`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  const files: string[] = [];
  const open = new Set<number>();
  const sink: EntrySink = {
    open(name) {
      const dest = path.resolve(staging, name);
      if (!dest.startsWith(staging + path.sep))
        throw new Error(`entry escapes the folder: ${name}`);
      mkdirSync(path.dirname(dest), { recursive: true });
      const fd = openSync(dest, 'wx', 0o644);
      open.add(fd);
      files.push(name);
      return {
        write: (chunk) => {
          writeSync(fd, chunk);
        },
        end: () => {
          open.delete(fd);
          closeSync(fd);
        },
      };
    },
  };
  let outcome: ScanOutcome;
  try {
    outcome = await scanArchive(bytes, compression, limits, sink);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  } finally {
    for (const fd of open) closeSync(fd); // entries cut short by a refusal
  }
  if (outcome.verdict === 'reject' && outcome.reason === 'safety_checks_failed') {
    await rm(staging, { recursive: true, force: true });
    return { ok: false, reason: outcome.reason, findings: describeFindings(outcome.findings) };
  }
  await rename(staging, target);
  return { ok: true, dir: target, files: files.sort() };
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * Writes bytes to a new file, never over an existing one, and never as a partial file: a hidden
 * temporary file beside it is written whole, then linked to the name (which fails if the name
 * exists) and removed; a failure at any point leaves the name absent.
 */
export async function saveNew(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${Date.now()}.part`,
  );
  try {
    await writeFile(temp, bytes, { flag: 'wx', mode: 0o644 });
    await link(temp, file);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
