import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, crc32 } from 'node:zlib';
import tar from 'tar-stream';
import { EntryInspector, type ScanContext } from './content.js';
import { checkModeBits } from './modes.js';
import { checkEntryName, NameRegistry, stripCurrentDir } from './names.js';
import { ScanRejection, unsafe } from './types.js';

const CHUNK = 64 * 1024;

function chunks(buf: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < buf.length; i += CHUNK) yield buf.subarray(i, i + CHUNK);
    })(),
  );
}

/**
 * Streams a gzip member through zlib with the inflated size and ratio counted as it grows (the scan
 * stops the moment a limit is passed), then checks the trailer: the last eight bytes of the file
 * must be this member's CRC-32 and length, so trailing bytes, padding and extra members are refused.
 * The inflated stream goes to `sink`.
 */
async function gunzipInto(
  buf: Buffer,
  ctx: ScanContext,
  where: string,
  sink: Writable,
): Promise<void> {
  if (
    buf.length < 18 ||
    buf[0] !== 0x1f ||
    buf[1] !== 0x8b ||
    buf[2] !== 8 ||
    (buf[3]! & 0xe0) !== 0
  ) {
    throw unsafe('not_gzip', where);
  }
  let crc = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        size += chunk.length;
        ctx.addExtracted(chunk.length, where);
        if (size > ctx.limits.ratioMinBytes && size / buf.length > ctx.limits.maxRatio)
          throw unsafe('compression_ratio', where);
        crc = crc32(chunk, crc);
        cb(null, chunk);
      } catch (e) {
        cb(e as Error);
      }
    },
  });
  try {
    await pipeline(chunks(buf), createGunzip({ chunkSize: CHUNK }), meter, sink);
  } catch (e) {
    if (e instanceof ScanRejection) throw e;
    throw unsafe('malformed_gzip', where, (e as Error).message);
  }
  if (
    buf.readUInt32LE(buf.length - 8) !== crc >>> 0 ||
    buf.readUInt32LE(buf.length - 4) !== size % 2 ** 32
  ) {
    throw unsafe('trailing_data', where, 'gzip trailer is not at the end of the file');
  }
}

/**
 * A tar.gz archive, or a gzip file nested in one. The uploaded archive (depth 0) must hold a tar
 * stream. A nested gzip holds a tar stream when its first block looks like a tar header; otherwise
 * it is compressed data (`fixtures/data.json.gz`): the inflated bytes are inspected as one file
 * named without `.gz` (secrets, executables and nested archives are still found inside it), under
 * the same size and ratio limits.
 */
export async function scanGzip(
  buf: Buffer,
  ctx: ScanContext,
  depth: number,
  prefix: string,
): Promise<void> {
  const where = prefix || 'archive';
  if (depth > 0 && !looksLikeTar(await gunzipHead(buf))) {
    const base = prefix.slice(prefix.lastIndexOf('/') + 1);
    const inner = base.replace(/\.t?gz$/i, (ext) => (ext.toLowerCase() === '.tgz' ? '.tar' : ''));
    const inspector = new EntryInspector(ctx, `${prefix}!/${inner || 'data'}`, depth);
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        try {
          inspector.write(chunk);
          cb();
        } catch (e) {
          cb(e as Error);
        }
      },
      final(cb) {
        inspector.end().then(() => cb(), cb);
      },
    });
    await gunzipInto(buf, ctx, where, sink);
    return;
  }
  const tarSink = new TarSink(ctx, depth, prefix);
  try {
    await gunzipInto(buf, ctx, where, tarSink.writable());
  } catch (e) {
    // the gzip stream was sound and the tar inside it was not: say which
    throw tarSink.malformed ?? e;
  }
  await tarSink.done();
}

/** What tar-stream says when the tar itself is malformed (headers.js, extract.js). */
const TAR_STREAM_ERROR =
  /^(?:Invalid tar header|Invalid header|Header exceeds max size|Unexpected end of data)/;

/** tar-stream's reason, in words a seller can act on (an old v7 tar has no format magic). */
export function tarFormatReason(message: string): string {
  return /unknown format/i.test(message)
    ? `${message} (not a ustar, GNU or pax tar: an old v7 tar? repack it with tar --format=ustar)`
    : message;
}

/**
 * The first inflated block of a gzip file (up to 512 bytes; fewer when the file is shorter or
 * corrupt). The inflater is stopped at once, so a bomb costs one output chunk here.
 */
function gunzipHead(buf: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const gunzip = createGunzip({ chunkSize: CHUNK });
    const out: Buffer[] = [];
    let len = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      resolve(Buffer.concat(out, len).subarray(0, 512));
    };
    gunzip.on('data', (c: Buffer) => {
      out.push(c);
      len += c.length;
      if (len >= 512) finish();
    });
    gunzip.on('end', finish);
    gunzip.on('error', finish);
    gunzip.on('close', finish);
    gunzip.end(buf.subarray(0, CHUNK));
  });
}

/** A ustar/GNU magic, or an old-style (v7) header whose checksum adds up. */
function looksLikeTar(head: Buffer): boolean {
  if (head.length < 512) return false;
  const magic = head.toString('latin1', 257, 262);
  if (magic === 'ustar') return true;
  const field = head
    .toString('latin1', 148, 156)
    .replace(/[\0 ]+$/, '')
    .trim();
  if (!/^[0-7]+$/.test(field)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
  return sum === parseInt(field, 8);
}

/** A plain (uncompressed) tar nested inside another archive. */
export async function scanTar(
  buf: Buffer,
  ctx: ScanContext,
  depth: number,
  prefix: string,
): Promise<void> {
  const sink = new TarSink(ctx, depth, prefix);
  try {
    await pipeline(chunks(buf), sink.writable());
  } catch (e) {
    if (e instanceof ScanRejection) throw e;
    throw unsafe('malformed_tar', prefix || 'archive', tarFormatReason((e as Error).message));
  }
  await sink.done();
}

/** Global pax records that change no entry's name, type, size or link (see TarSink.checkPax). */
const HARMLESS_GLOBAL_PAX = new Set([
  'comment',
  'mtime',
  'atime',
  'ctime',
  'uid',
  'gid',
  'uname',
  'gname',
]);

/**
 * Feeds a tar stream to tar-stream's parser and inspects each entry as it streams: only regular
 * files and directories are accepted (symlinks, hard links, devices, FIFOs and unknown types are
 * refused, and set-user-ID or set-group-ID modes: ./modes.ts), names are checked, duplicates refused, and file bytes go through the content inspector.
 */
class TarSink {
  private readonly extract = tar.extract();
  private readonly names = new NameRegistry();
  private failure: unknown;
  private sawHeader = false;
  /** tar-stream's own refusal of a header (not a rule of ours), as `malformed_tar`. */
  malformed: ScanRejection | undefined;

  constructor(
    private readonly ctx: ScanContext,
    private readonly depth: number,
    private readonly prefix: string,
  ) {
    this.extract.on('error', (e: unknown) => {
      // tar-stream's own refusals only: a gzip error reaches this stream too (pipeline)
      if (e instanceof Error && TAR_STREAM_ERROR.test(e.message))
        this.malformed ??= unsafe(
          'malformed_tar',
          this.prefix || 'archive',
          tarFormatReason((e as Error).message),
        );
    });
    this.extract.on('entry', (header, stream, next) => {
      this.sawHeader = true;
      this.entry(header, stream as unknown as AsyncIterable<Buffer> & { resume(): unknown }).then(
        () => next(),
        (err: unknown) => {
          this.failure ??= err;
          stream.resume();
          next(err as Error);
        },
      );
    });
  }

  writable(): Writable {
    return this.extract as unknown as Writable;
  }

  async done(): Promise<void> {
    if (this.failure) throw this.failure;
    void this.sawHeader;
  }

  /**
   * pax records GNU tar obeys and tar-stream does not. `GNU.sparse.name` (pax sparse formats 0.x
   * and 1.0, what `tar --format=pax --sparse` writes) renames the file on extraction, so a file the
   * scan read as `GNUSparseFile.1/notes.txt` was written as `.git/hooks/post-checkout`, and its
   * data is a sparse map, not the file: any `GNU.sparse.*` record is refused, as the GNU format's
   * sparse type `S` is. A global header (`g`) applies its records to every later entry in GNU tar,
   * but tar-stream merges it only into entries that have their own pax header, so a global `path`,
   * `size` or `linkpath` is refused; what `git archive` writes (`comment`) and times or owners are
   * harmless.
   */
  private checkPax(header: tar.Header, path: string): void {
    const global =
      (this.extract as unknown as { _paxGlobal?: Record<string, string> | null })._paxGlobal ?? {};
    for (const key of Object.keys({ ...global, ...(header.pax ?? {}) })) {
      if (key.startsWith('GNU.sparse.'))
        throw unsafe('unsupported_entry_type', path, 'pax GNU.sparse record (sparse file)');
    }
    for (const key of Object.keys(global)) {
      if (!HARMLESS_GLOBAL_PAX.has(key))
        throw unsafe('unsupported_entry_type', path, `pax global header sets ${key.slice(0, 40)}`);
    }
  }

  private async entry(
    header: tar.Header,
    stream: AsyncIterable<Buffer> & { resume(): unknown },
  ): Promise<void> {
    const name = stripCurrentDir(header.name);
    const path = this.prefix ? `${this.prefix}!/${name}` : name;
    this.ctx.countEntry(path);
    this.checkPax(header, path);
    if (name === '' && header.type === 'directory') {
      stream.resume();
      return;
    }
    checkEntryName(name, path);
    switch (header.type) {
      case 'directory':
        this.names.add(name, 'dir', path);
        if ((header.size ?? 0) !== 0) throw unsafe('directory_with_content', path);
        checkModeBits(header.mode ?? 0, true, path);
        stream.resume();
        return;
      case 'file':
        this.names.add(name, 'file', path);
        checkModeBits(header.mode ?? 0, false, path);
        break;
      case 'symlink':
        throw unsafe('symlink', path);
      case 'link':
        throw unsafe('hard_link', path);
      case 'character-device':
      case 'block-device':
      case 'fifo':
        throw unsafe('special_file', path, header.type);
      default:
        throw unsafe('unsupported_entry_type', path, String(header.type));
    }
    const inspector = new EntryInspector(this.ctx, path, this.depth);
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      inspector.write(chunk);
    }
    if (size !== header.size) throw unsafe('size_mismatch', path);
    await inspector.end();
  }
}
