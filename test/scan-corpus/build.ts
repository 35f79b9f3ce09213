import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  buildTar,
  buildTarGz,
  buildZip,
  uniqueProject,
  type Files,
  type TarEntrySpec,
  type ZipEntrySpec,
} from '../helpers/archives.js';
import type { CorpusCase, CorpusCompression } from './types.js';

/**
 * Building blocks of the corpus families: a deterministic base project per case (so that only the
 * hostile part can explain a refusal, and every run scans the same bytes), raw tar blocks for the
 * shapes tar-stream's packer will not write, byte patches of zip central records, and nesting.
 */

/** A stable 12-hex seed from a case name. */
export function seedOf(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 12);
}

/** The base project of a hostile case: a real, original TypeScript project (passes on its own). */
export function baseProject(name: string): Files {
  return uniqueProject(seedOf(name));
}

const entriesOf = (files: Files) => Object.entries(files).map(([name, data]) => ({ name, data }));

export function zipWith(files: Files, extra: ZipEntrySpec[] = []): Buffer {
  return buildZip([...entriesOf(files), ...extra]);
}

export function tarGzWith(files: Files, extra: TarEntrySpec[] = []): Promise<Buffer> {
  return buildTarGz([...entriesOf(files), ...extra]);
}

/** A project packed as either compression. */
export async function pack(c: CorpusCompression, files: Files): Promise<Buffer> {
  return c === 'zip' ? zipWith(files) : tarGzWith(files);
}

/** Rewrites the central record of `name`: host byte of "version made by", external attributes. */
export function patchCentral(
  zip: Buffer,
  name: string,
  patch: { host?: number; external?: number },
): Buffer {
  const out = Buffer.from(zip);
  const eocd = out.length - 22;
  let p = out.readUInt32LE(eocd + 16);
  const count = out.readUInt16LE(eocd + 10);
  for (let i = 0; i < count; i++) {
    const nameLen = out.readUInt16LE(p + 28);
    const extraLen = out.readUInt16LE(p + 30);
    const commentLen = out.readUInt16LE(p + 32);
    if (out.toString('utf8', p + 46, p + 46 + nameLen) === name) {
      if (patch.host !== undefined) out[p + 5] = patch.host;
      if (patch.external !== undefined) out.writeUInt32LE(patch.external >>> 0, p + 38);
      return out;
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`no central record named ${name}`);
}

/** A zip entry whose external attributes carry `mode` (upper 16 bits), made by `host`. */
export function zipWithMode(
  files: Files,
  entry: { name: string; data: string; mode: number; host: number },
): Buffer {
  const zip = zipWith(files, [{ name: entry.name, data: entry.data, method: 0 }]);
  return patchCentral(zip, entry.name, { host: entry.host, external: (entry.mode << 16) >>> 0 });
}

// --- raw tar ---------------------------------------------------------------------------------

export interface RawTarHeader {
  name: string;
  /** Type flag: '0' file, '1' hard link, '2' symlink, '3' char device, '5' directory, 'x' pax... */
  type?: string;
  size?: number;
  linkname?: string;
  prefix?: string;
  mode?: number;
  /** false: an old (v7) header without the ustar magic. */
  ustar?: boolean;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/** One ustar header block with a correct checksum. */
export function tarHeader(h: RawTarHeader): Buffer {
  const b = Buffer.alloc(512);
  b.write(h.name, 0, 100, 'utf8');
  b.write(octal(h.mode ?? 0o644, 8), 100, 'latin1');
  b.write(octal(0, 8), 108, 'latin1');
  b.write(octal(0, 8), 116, 'latin1');
  b.write(octal(h.size ?? 0, 12), 124, 'latin1');
  b.write(octal(1_700_000_000, 12), 136, 'latin1');
  b.write('        ', 148, 'latin1');
  b.write(h.type ?? '0', 156, 'latin1');
  if (h.linkname) b.write(h.linkname, 157, 100, 'utf8');
  if (h.ustar !== false) b.write('ustar\u000000', 257, 'latin1');
  if (h.prefix) b.write(h.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const x of b) sum += x;
  b.write(octal(sum, 7) + ' ', 148, 'latin1');
  return b;
}

const pad512 = (data: Buffer) =>
  Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** A header and its data, padded to the block size. */
export function tarBlock(h: RawTarHeader, data: string | Buffer = Buffer.alloc(0)): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([tarHeader({ ...h, size: body.length }), pad512(body)]);
}

/**
 * A pax extended header (typeflag `x`) applying `records` to the next entry, or a global one
 * (`g`) applying them to every later entry.
 */
export function paxBlock(records: Record<string, string>, type: 'x' | 'g' = 'x'): Buffer {
  const lines = Object.entries(records).map(([k, v]) => {
    const body = ` ${k}=${v}\n`;
    let len = body.length + 1;
    while (String(len).length + body.length !== len) len = String(len).length + body.length;
    return `${len}${body}`;
  });
  return tarBlock(
    { name: type === 'g' ? 'pax_global_header' : 'PaxHeader/entry', type },
    lines.join(''),
  );
}

/** A GNU long-name (`L`) or long-link (`K`) block for the next entry. */
export function gnuLongBlock(type: 'L' | 'K', value: string): Buffer {
  return tarBlock({ name: '././@LongLink', type }, `${value}\0`);
}

/** The project's files as raw tar blocks (no end marker). */
export function tarBlocksOf(files: Files): Buffer {
  return Buffer.concat(
    Object.entries(files).map(([name, data]) =>
      tarBlock({ name }, typeof data === 'string' ? Buffer.from(data) : data),
    ),
  );
}

export const TAR_END = Buffer.alloc(1024);

/** A tar.gz of the project followed by raw blocks (`after`), then the end-of-archive marker. */
export function rawTarGz(files: Files, blocks: Buffer[], afterEnd: Buffer[] = []): Buffer {
  const parts = [tarBlocksOf(files), ...blocks, TAR_END];
  if (afterEnd.length) parts.push(...afterEnd, TAR_END);
  return gzipSync(Buffer.concat(parts));
}

/** A plain tar of the files (for nesting, or for mislabels). */
export function tarOf(files: Files): Promise<Buffer> {
  return buildTar(entriesOf(files));
}

// --- nesting and case builders -----------------------------------------------------------------

/**
 * `inner` placed at `innerPath` inside an ordinary project packed as `outer` (depth 1: the scan
 * opens nested archives and applies the same rules to them).
 */
export function nest(
  outer: CorpusCompression,
  name: string,
  innerPath: string,
  inner: Buffer,
): Promise<Buffer> {
  return pack(outer, { ...baseProject(`${name}/outer`), [innerPath]: inner });
}

export const BOTH: CorpusCompression[] = ['zip', 'tar.gz'];

export function hostileCase(
  family: string,
  variant: string,
  compression: CorpusCompression,
  expectCheck: string,
  build: (name: string) => Buffer | Promise<Buffer>,
): CorpusCase {
  const name = `${family}/${variant}-${compression}`;
  return { name, family, hostile: true, compression, expectCheck, build: () => build(name) };
}

/** The same hostile file set in both compressions (the payload is a plain file addition). */
export function filesCase(
  family: string,
  variant: string,
  expectCheck: string,
  extra: (name: string) => Files,
  compressions: CorpusCompression[] = BOTH,
): CorpusCase[] {
  return compressions.map((c) =>
    hostileCase(family, variant, c, expectCheck, (name) =>
      pack(c, { ...baseProject(name), ...extra(name) }),
    ),
  );
}
