import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import tar from 'tar-stream';

/**
 * Archives built at test time, byte by byte where needed, so that every hostile shape (forged
 * headers, overlaps, trailing bytes…) can be produced without external tools.
 */

export interface ZipEntrySpec {
  name: string;
  data?: Buffer | string;
  /** 8 = deflate (default for files), 0 = stored. */
  method?: number;
  /** Raw bytes to place as the entry's data instead of compressing `data`. */
  compressed?: Buffer;
  flags?: number;
  /** Unix mode (sets "made by Unix" and the external attributes), e.g. 0o120777 for a symlink. */
  unixMode?: number;
  /** Put sizes and CRC in a data descriptor after the data (flag bit 3). */
  descriptor?: boolean;
  /** Raw extra fields (id, size, data…) of the local header and of the central record. */
  localExtra?: Buffer;
  centralExtra?: Buffer;
  /** Overrides of the declared values in the local header and/or the central record. */
  local?: Partial<FieldSet>;
  central?: Partial<FieldSet & { offset: number }>;
}

interface FieldSet {
  name: string;
  method: number;
  flags: number;
  crc: number;
  csize: number;
  usize: number;
}

export interface ZipOptions {
  prepend?: Buffer;
  trailing?: Buffer;
  /** Extra central records pointing at arbitrary offsets (overlap bombs). */
  extraCentral?: Array<FieldSet & { offset: number }>;
}

export function buildZip(entries: ZipEntrySpec[], opts: ZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    offset += b.length;
  };
  if (opts.prepend) push(opts.prepend);
  const centrals: Buffer[] = [];
  for (const e of entries) {
    const isDir = e.name.endsWith('/');
    const raw = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0));
    const method = e.method ?? (isDir ? 0 : 8);
    const body = e.compressed ?? (method === 8 ? deflateRawSync(raw) : raw);
    const real: FieldSet = {
      name: e.name,
      method,
      flags: (e.flags ?? 0) | 0x800 | (e.descriptor ? 0x8 : 0),
      crc: crc32(raw),
      csize: body.length,
      usize: raw.length,
    };
    const local = { ...real, ...e.local };
    const central = { ...real, offset, ...e.central };
    const localHeader = header(0x04034b50, local, e.descriptor, e.localExtra);
    push(localHeader);
    push(body);
    if (e.descriptor) {
      const d = Buffer.alloc(16);
      d.writeUInt32LE(0x08074b50, 0);
      d.writeUInt32LE(real.crc, 4);
      d.writeUInt32LE(real.csize, 8);
      d.writeUInt32LE(real.usize, 12);
      push(d);
    }
    centrals.push(centralRecord(central, e.unixMode, e.centralExtra));
  }
  for (const x of opts.extraCentral ?? []) centrals.push(centralRecord(x));
  const cdOffset = offset;
  const cd = Buffer.concat(centrals);
  push(cd);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(centrals.length, 8);
  eocd.writeUInt16LE(centrals.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(cdOffset, 16);
  push(eocd);
  if (opts.trailing) push(opts.trailing);
  return Buffer.concat(parts);
}

function header(
  sig: number,
  f: FieldSet,
  descriptor?: boolean,
  extra: Buffer = Buffer.alloc(0),
): Buffer {
  const name = Buffer.from(f.name);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(sig, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(f.flags, 6);
  h.writeUInt16LE(f.method, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(0x21, 12);
  h.writeUInt32LE(descriptor ? 0 : f.crc, 14);
  h.writeUInt32LE(descriptor ? 0 : f.csize, 18);
  h.writeUInt32LE(descriptor ? 0 : f.usize, 22);
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(extra.length, 28);
  return Buffer.concat([h, name, extra]);
}

function centralRecord(
  f: FieldSet & { offset: number },
  unixMode?: number,
  extra: Buffer = Buffer.alloc(0),
): Buffer {
  const name = Buffer.from(f.name);
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(unixMode !== undefined ? (3 << 8) | 20 : 20, 4);
  h.writeUInt16LE(20, 6);
  h.writeUInt16LE(f.flags, 8);
  h.writeUInt16LE(f.method, 10);
  h.writeUInt16LE(0, 12);
  h.writeUInt16LE(0x21, 14);
  h.writeUInt32LE(f.crc, 16);
  h.writeUInt32LE(f.csize, 20);
  h.writeUInt32LE(f.usize, 24);
  h.writeUInt16LE(name.length, 28);
  h.writeUInt16LE(extra.length, 30);
  h.writeUInt32LE(unixMode !== undefined ? (unixMode << 16) >>> 0 : 0, 38);
  h.writeUInt32LE(f.offset, 42);
  return Buffer.concat([h, name, extra]);
}

export interface TarEntrySpec {
  name: string;
  data?: Buffer | string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  linkname?: string;
}

export async function buildTar(entries: TarEntrySpec[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : e.data;
    const type = e.type ?? 'file';
    await new Promise<void>((resolve, reject) => {
      const hdr = {
        name: e.name,
        type,
        linkname: e.linkname,
        mode: type === 'directory' ? 0o755 : 0o644,
      };
      if (type === 'file')
        pack.entry(hdr, data ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
      else pack.entry(hdr, (err) => (err ? reject(err) : resolve()));
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * An ASi Unix extra field (0x756e), as Info-ZIP's extrafld.txt lays it out: CRC-32 of what
 * follows, mode, size (or device), UID, GID, then the link target (empty for a file).
 */
export function asiUnixField(mode: number, link = ''): Buffer {
  const target = Buffer.from(link);
  const body = Buffer.alloc(10 + target.length);
  body.writeUInt16LE(mode & 0xffff, 0);
  body.writeUInt32LE(target.length, 2);
  body.writeUInt16LE(1000, 6);
  body.writeUInt16LE(1000, 8);
  target.copy(body, 10);
  const head = Buffer.alloc(8);
  head.writeUInt16LE(0x756e, 0);
  head.writeUInt16LE(4 + body.length, 2);
  head.writeUInt32LE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

/**
 * A PKWARE Unix extra field (0x000d, APPNOTE 4.5.7): atime, mtime, UID, GID, then the variable
 * part (a link's target, a device's numbers; nothing for a file).
 */
export function pkwareUnixField(variable: Buffer | string = ''): Buffer {
  const rest = Buffer.from(variable);
  const f = Buffer.alloc(16 + rest.length);
  f.writeUInt16LE(0x000d, 0);
  f.writeUInt16LE(12 + rest.length, 2);
  f.writeUInt32LE(1_700_000_000, 4);
  f.writeUInt32LE(1_700_000_000, 8);
  f.writeUInt16LE(1000, 12);
  f.writeUInt16LE(1000, 14);
  rest.copy(f, 16);
  return f;
}

export async function buildTarGz(entries: TarEntrySpec[]): Promise<Buffer> {
  return gzipSync(await buildTar(entries));
}

export type Files = Record<string, string | Buffer>;

/** The files written into a new temporary directory (a project to pack, as an agent has one). */
export function projectDir(files: Files): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'project-'));
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), data);
  }
  return dir;
}

export function zipOf(files: Files): Buffer {
  return buildZip(Object.entries(files).map(([name, data]) => ({ name, data })));
}

export function tarGzOf(files: Files): Promise<Buffer> {
  return buildTarGz(Object.entries(files).map(([name, data]) => ({ name, data })));
}

const WORDS = [
  'alpha',
  'bravo',
  'cobalt',
  'delta',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kelvin',
  'lumen',
  'meadow',
  'nectar',
  'onyx',
  'pepper',
  'quartz',
  'ripple',
  'saffron',
  'tundra',
];

/**
 * A small, original TypeScript project whose every meaningful line depends on `seed`, so that two
 * seeds never look like near-copies of each other (and each has its own SHA-256).
 */
export function uniqueProject(seed: string = randomBytes(6).toString('hex')): Files {
  const fn = (i: number) => `${WORDS[i % WORDS.length]}_${seed}_${i}`;
  const lines: string[] = [`// module ${seed}`, `export const MODULE_ID = '${seed}';`];
  for (let i = 0; i < 30; i++) {
    lines.push(`export function ${fn(i)}(input: number): number {`);
    lines.push(`  const scaled_${seed}_${i} = input * ${i + 3} + ${seed.length + i};`);
    lines.push(`  return scaled_${seed}_${i} % ${97 + i};`);
    lines.push('}');
  }
  return {
    'package.json': JSON.stringify(
      { name: `pkg-${seed}`, version: '1.0.0', type: 'module' },
      null,
      2,
    ),
    'README.md': `# Project ${seed}\n\nHelpers generated for seed ${seed}.\n`,
    'src/index.ts': lines.join('\n') + '\n',
  };
}
