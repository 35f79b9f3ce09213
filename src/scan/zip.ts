import { crc32, inflateRawSync } from 'node:zlib';
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { EntryInspector, type ScanContext } from './content.js';
import { checkModeBits } from './modes.js';
import { checkEntryName, NameRegistry, stripCurrentDir } from './names.js';
import { ScanRejection, unsafe } from './types.js';

const SIG_LOCAL = 0x04034b50;
const SIG_EOCD = 0x06054b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_DESCRIPTOR = 0x08074b50;
const U32_MAX = 0xffffffff;
const ROOT = './';

interface Span {
  start: number;
  end: number;
  path: string;
  /** First byte of the entry's (compressed) data, after the local header. */
  dataStart: number;
}

/** Entries declaring at most this much are inflated in one bounded call instead of a stream. */
const SMALL_ENTRY = 1024 * 1024;

interface Layout {
  cdOffset: number;
  /** Where the central directory must end: the EOCD record, or the zip64 EOCD record. */
  cdEnd: number;
}

/**
 * Scans one zip archive held in memory (archives are capped at a few MB; nested ones by
 * maxNestedBytes). yauzl reads the central directory and inflates; this module cross-checks what
 * yauzl does not: every local header against its central record (name, flags, method, CRC, sizes,
 * data descriptor), entry spans that overlap or leave unaccounted bytes, data before the first entry
 * or after the end record, declared sizes and ratios before anything is inflated, then the actual
 * size, ratio and CRC while inflating. Nothing is written to disk.
 */
export async function scanZip(
  buf: Buffer,
  ctx: ScanContext,
  depth: number,
  prefix: string,
): Promise<void> {
  const layout = readLayout(buf, prefix || 'archive');
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buf, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      // Sizes are checked below as bytes arrive, so that a lying entry stops at its declared size.
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (e) {
    throw unsafe('malformed_zip', prefix || undefined, (e as Error).message);
  }
  try {
    if (zip.entryCount + ctx.stats.entries > ctx.limits.maxEntries)
      throw unsafe('too_many_entries', prefix || undefined);
    const entries = await readAllEntries(zip, prefix);
    const names = new NameRegistry();
    const spans: Span[] = [];
    // Structure first (names, kinds, headers, layout), so that a bomb built from overlapping
    // entries is named for what it is before any size is even considered.
    for (const { entry, name } of entries) {
      const path = prefix ? `${prefix}!/${name}` : name;
      ctx.countEntry(path);
      if (name === ROOT) {
        if (entry.uncompressedSize !== 0) throw unsafe('directory_with_content', path);
        spans.push(checkLocalHeader(buf, entry, layout, path));
        continue;
      }
      checkEntryName(name, path);
      checkUnicodePathExtra(entry, name, path);
      const isDir = name.endsWith('/');
      names.add(name, isDir ? 'dir' : 'file', path);
      checkEntryKind(entry, isDir, path);
      spans.push(checkLocalHeader(buf, entry, layout, path));
    }
    checkSpans(spans, layout, prefix);
    checkDirectory(entries, layout, prefix);
    // Then the declared sizes, before anything is inflated.
    let declaredTotal = ctx.stats.extractedBytes;
    for (const { entry, name } of entries) {
      const path = prefix ? `${prefix}!/${name}` : name;
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > ctx.limits.maxExtractedBytes)
        throw unsafe('extracted_size_limit', path, 'declared');
      if (
        entry.uncompressedSize > ctx.limits.ratioMinBytes &&
        entry.uncompressedSize / Math.max(entry.compressedSize, 1) > ctx.limits.maxRatio
      ) {
        throw unsafe('compression_ratio', path, 'declared');
      }
    }
    for (const [i, { entry, name }] of entries.entries()) {
      if (name.endsWith('/')) continue;
      const path = prefix ? `${prefix}!/${name}` : name;
      if (entry.uncompressedSize <= SMALL_ENTRY)
        await inflateSmall(buf, entry, spans[i]!.dataStart, ctx, depth, path);
      else await inflateEntry(zip, entry, ctx, depth, path);
    }
  } finally {
    zip.close();
  }
}

function readLayout(buf: Buffer, where: string): Layout {
  if (buf.length < 22) throw unsafe('not_a_zip', where);
  // The end record is the last signature within the comment window.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === SIG_EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw unsafe('not_a_zip', where);
  const commentLength = buf.readUInt16LE(eocd + 20);
  if (eocd + 22 + commentLength !== buf.length) throw unsafe('trailing_data', where);
  if (buf.readUInt16LE(eocd + 4) !== 0 || buf.readUInt16LE(eocd + 6) !== 0)
    throw unsafe('multi_disk_zip', where);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  let cdEnd = eocd;
  const locator = eocd - 20;
  if (locator >= 0 && buf.readUInt32LE(locator) === SIG_ZIP64_LOCATOR) {
    const recOffset = Number(buf.readBigUInt64LE(locator + 8));
    if (recOffset + 56 > locator || buf.readUInt32LE(recOffset) !== SIG_ZIP64_EOCD)
      throw unsafe('malformed_zip64', where);
    cdOffset = Number(buf.readBigUInt64LE(recOffset + 48));
    cdEnd = recOffset;
  }
  // A file glued before the zip (GIF+zip, a shell stub): the directory sits where the end record
  // says it ends, not at the offset it records, and every offset is off by the prefix.
  const cdSize = buf.readUInt32LE(eocd + 12);
  if (
    buf.readUInt16LE(eocd + 10) > 0 &&
    cdOffset !== U32_MAX &&
    cdEnd === eocd &&
    (cdOffset + 4 > buf.length || buf.readUInt32LE(cdOffset) !== SIG_CENTRAL) &&
    cdEnd - cdSize > cdOffset &&
    buf.readUInt32LE(cdEnd - cdSize) === SIG_CENTRAL
  ) {
    throw unsafe('prepended_data', where, `${cdEnd - cdSize - cdOffset} bytes before the zip`);
  }
  return { cdOffset, cdEnd };
}

async function readAllEntries(
  zip: ZipFile,
  prefix: string,
): Promise<Array<{ entry: Entry; name: string }>> {
  return new Promise((resolve, reject) => {
    const out: Array<{ entry: Entry; name: string }> = [];
    zip.on('entry', (entry: Entry) => {
      try {
        const name = stripCurrentDir(decodeName(entry.fileNameRaw, entry.generalPurposeBitFlag));
        // A bare `./` entry (the root directory) is kept as the marker ROOT and skipped by checks.
        out.push({ entry, name: name === '' && entry.fileNameRaw.length > 0 ? ROOT : name });
      } catch (e) {
        reject(e);
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(out));
    zip.on('error', (e: Error) => reject(unsafe('malformed_zip', prefix || undefined, e.message)));
    zip.readEntry();
  });
}

/** UTF-8 when flagged (or plain ASCII); anything else is refused rather than guessed. */
function decodeName(raw: Buffer, flags: number): string {
  const ascii = !raw.some((b) => b >= 0x80);
  if (ascii || flags & 0x800) return new TextDecoder('utf-8', { fatal: false }).decode(raw);
  // Legacy code-page names: decoded as latin1 and marked so the name check refuses them.
  return raw.toString('latin1') + '\ufffd';
}

/** The Info-ZIP Unicode Path field (0x7075) is a second name: it must agree with the first. */
function checkUnicodePathExtra(entry: Entry, name: string, path: string): void {
  for (const f of entry.extraFields) {
    if (f.id !== 0x7075 || f.data.length < 5) continue;
    const alias = f.data.subarray(5).toString('utf8');
    if (alias !== name) throw unsafe('conflicting_names', path);
  }
}

function checkEntryKind(entry: Entry, isDir: boolean, path: string): void {
  const flags = entry.generalPurposeBitFlag;
  if (flags & 0x1 || flags & 0x40 || flags & 0x2000) throw unsafe('encrypted_entry', path);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw unsafe('unsupported_compression', path, `method ${entry.compressionMethod}`);
  }
  // The file type in the upper 16 bits counts whatever host "version made by" names: Info-ZIP
  // applies Unix modes from Atari, BeOS, AtheOS... hosts too, and other extractors ignore the host.
  checkFileType(entry.externalFileAttributes, isDir, path, `host ${entry.versionMadeBy >> 8}`);
  for (const f of entry.extraFields) checkUnixExtra(f.id, f.data, isDir, path);
  if (entry.compressionMethod === 0 && entry.compressedSize !== entry.uncompressedSize) {
    throw unsafe('stored_size_mismatch', path);
  }
  if (isDir && entry.uncompressedSize !== 0) throw unsafe('directory_with_content', path);
}

/**
 * The Unix mode in the upper 16 bits of external attributes: a regular file or directory only, and
 * no set-user-ID or set-group-ID file (./modes.ts). Also read from the Unix extra fields below.
 */
function checkFileType(attrs: number, isDir: boolean, path: string, where: string): void {
  const type = (attrs >>> 16) & 0o170000;
  if (type === 0o120000) throw unsafe('symlink', path, where);
  if (type !== 0 && type !== 0o100000 && type !== 0o040000) throw unsafe('special_file', path);
  if (type === 0o040000 && !isDir) throw unsafe('special_file', path, 'directory mode on a file');
  checkModeBits(attrs >>> 16, isDir, path);
}

/**
 * Extra fields that declare an entry's Unix type, each read by some extractor:
 * - libarchive's experimental 'xl' field (0x6c78) carries external attributes in the local header
 *   (and may in the central record) for streaming extraction; bsdtar (also Windows' tar.exe) takes
 *   the entry's mode from it over the central record's, so a symlink can hide there.
 * - ASi Unix (0x756e: CRC-32, mode, size or device, UID, GID, link target): Info-ZIP UnZip takes
 *   the mode from it when the central record's upper 16 bits are zero (unix/unix.c, mapattr) and
 *   then makes a symlink of an S_IFLNK mode, the entry's data as the target. Its link-target part
 *   says "symlink" on its own (Commons Compress reads it so).
 * - PKWARE Unix (0x000d: atime, mtime, UID, GID, then a hard or symbolic link's target or a
 *   device's numbers). UnZip, 7-Zip and libarchive read only the times and IDs today (libarchive
 *   since 2026); a regular file or directory never has the variable part, so one that does is
 *   refused before an extractor starts to honour it.
 */
const XL_FIELD = 0x6c78;
const ASI_UNIX = 0x756e;
const PKWARE_UNIX = 0x000d;

/** Refuses an entry whose Unix extra field `id` (central or local) declares a link or device. */
function checkUnixExtra(id: number, data: Buffer, isDir: boolean, path: string): void {
  if (id === XL_FIELD) {
    const attrs = xlAttributes(data);
    if (attrs !== undefined) checkFileType(attrs, isDir, path, 'xl extra field');
  } else if (id === ASI_UNIX && data.length >= 6) {
    checkFileType(data.readUInt16LE(4) << 16, isDir, path, 'ASi Unix extra field');
    if (data.length > 14) throw unsafe('symlink', path, 'ASi Unix extra field: link target');
  } else if (id === PKWARE_UNIX && data.length > 12) {
    throw unsafe('symlink', path, 'PKWARE Unix extra field: link target or device');
  }
}

/** The external attributes an 'xl' field's data holds (bitmap & 4), if any. */
function xlAttributes(data: Buffer): number | undefined {
  if (data.length < 1) return undefined;
  const bitmap = data[0]! & 0x7f;
  let p = 1;
  while (p - 1 < data.length && data[p - 1]! & 0x80) p++;
  if (bitmap & 1) p += 2;
  if (bitmap & 2) p += 2;
  return bitmap & 4 && p + 4 <= data.length ? data.readUInt32LE(p) : undefined;
}

/** Checks the Unix extra fields among raw extra fields (a local header's). */
function checkLocalUnixExtras(extra: Buffer, isDir: boolean, path: string): void {
  for (let p = 0; p + 4 <= extra.length;) {
    const id = extra.readUInt16LE(p);
    const size = extra.readUInt16LE(p + 2);
    checkUnixExtra(id, extra.subarray(p + 4, p + 4 + size), isDir, path);
    p += 4 + size;
  }
}

/** Cross-checks the local header (and data descriptor) with the central record; returns the span. */
function checkLocalHeader(buf: Buffer, entry: Entry, layout: Layout, path: string): Span {
  const lh = entry.relativeOffsetOfLocalHeader;
  if (lh + 30 > layout.cdOffset || buf.readUInt32LE(lh) !== SIG_LOCAL)
    throw unsafe('bad_local_header', path);
  const flags = buf.readUInt16LE(lh + 6);
  const method = buf.readUInt16LE(lh + 8);
  const crc = buf.readUInt32LE(lh + 14);
  const csize = buf.readUInt32LE(lh + 18);
  const usize = buf.readUInt32LE(lh + 22);
  const nameLen = buf.readUInt16LE(lh + 26);
  const extraLen = buf.readUInt16LE(lh + 28);
  const dataStart = lh + 30 + nameLen + extraLen;
  const mismatch = (what: string) => unsafe('local_header_mismatch', path, what);
  if (!buf.subarray(lh + 30, lh + 30 + nameLen).equals(entry.fileNameRaw)) throw mismatch('name');
  const isDir = entry.fileNameRaw[nameLen - 1] === 0x2f;
  checkLocalUnixExtras(buf.subarray(lh + 30 + nameLen, dataStart), isDir, path);
  if ((flags & 0x2041) !== (entry.generalPurposeBitFlag & 0x2041))
    throw mismatch('encryption flag');
  if ((flags & 0x8) !== (entry.generalPurposeBitFlag & 0x8)) throw mismatch('descriptor flag');
  if (method !== entry.compressionMethod) throw mismatch('compression method');
  let end = dataStart + entry.compressedSize;
  if (!(flags & 0x8)) {
    if (crc !== entry.crc32) throw mismatch('crc32');
    if (csize !== U32_MAX && csize !== entry.compressedSize) throw mismatch('compressed size');
    if (usize !== U32_MAX && usize !== entry.uncompressedSize) throw mismatch('uncompressed size');
    if (csize === U32_MAX || usize === U32_MAX) {
      const z = localZip64Sizes(buf.subarray(lh + 30 + nameLen, dataStart), usize, csize);
      if (!z) throw mismatch('zip64 extra field');
      if (z.usize !== undefined && z.usize !== entry.uncompressedSize)
        throw mismatch('zip64 uncompressed size');
      if (z.csize !== undefined && z.csize !== entry.compressedSize)
        throw mismatch('zip64 compressed size');
    }
  } else {
    if ((crc !== 0 && crc !== entry.crc32) || (csize !== 0 && csize !== entry.compressedSize))
      throw mismatch('sizes');
    if (end + 12 > layout.cdOffset) throw unsafe('bad_data_descriptor', path);
    let p = end;
    if (buf.readUInt32LE(p) === SIG_DESCRIPTOR) p += 4;
    const zip64 = entry.compressedSize >= U32_MAX || entry.uncompressedSize >= U32_MAX;
    const dCrc = buf.readUInt32LE(p);
    const dC = zip64 ? Number(buf.readBigUInt64LE(p + 4)) : buf.readUInt32LE(p + 4);
    const dU = zip64 ? Number(buf.readBigUInt64LE(p + 12)) : buf.readUInt32LE(p + 8);
    if (dCrc !== entry.crc32 || dC !== entry.compressedSize || dU !== entry.uncompressedSize)
      throw mismatch('data descriptor');
    end = p + (zip64 ? 20 : 12);
  }
  if (end > layout.cdOffset)
    throw unsafe('overlapping_entries', path, 'entry runs into the central directory');
  return { start: lh, end, path, dataStart };
}

/**
 * The sizes a local header's zip64 extra field (0x0001) gives where its own fields are 0xFFFFFFFF:
 * a streaming extractor (Java's ZipInputStream, bsdtar reading a pipe) reads a stored entry's
 * length from there, so a size that differs from the central record's hides bytes as a header
 * mismatch does. The local form holds both sizes (uncompressed, then compressed); a writer that
 * puts only the one it marked is read that way too. Undefined when the field is missing or short.
 */
function localZip64Sizes(
  extra: Buffer,
  usize: number,
  csize: number,
): { usize?: number; csize?: number } | undefined {
  for (let p = 0; p + 4 <= extra.length;) {
    const id = extra.readUInt16LE(p);
    const size = extra.readUInt16LE(p + 2);
    const data = extra.subarray(p + 4, p + 4 + size);
    p += 4 + size;
    if (id !== 0x0001) continue;
    const want = Number(usize === U32_MAX) + Number(csize === U32_MAX);
    if (data.length >= 16)
      return {
        ...(usize === U32_MAX && { usize: Number(data.readBigUInt64LE(0)) }),
        ...(csize === U32_MAX && { csize: Number(data.readBigUInt64LE(8)) }),
      };
    if (data.length < 8 * want) return undefined;
    return usize === U32_MAX
      ? { usize: Number(data.readBigUInt64LE(0)) }
      : { csize: Number(data.readBigUInt64LE(0)) };
  }
  return undefined;
}

/** Entries must tile the bytes before the central directory exactly: no overlap, gap or prefix. */
function checkSpans(spans: Span[], layout: Layout, prefix: string): void {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let pos = 0;
  for (const s of sorted) {
    if (s.start < pos) throw unsafe('overlapping_entries', s.path);
    if (s.start > pos) throw unsafe(pos === 0 ? 'prepended_data' : 'unaccounted_bytes', s.path);
    pos = s.end;
  }
  if (pos !== layout.cdOffset)
    throw unsafe('unaccounted_bytes', prefix || undefined, 'before central directory');
  const cdSize = layout.cdEnd - layout.cdOffset;
  if (cdSize < 0) throw unsafe('malformed_zip', prefix || undefined, 'central directory bounds');
}

/**
 * The central records read (as many as the end record counts) must fill the directory exactly.
 * Readers that walk the directory by its size (Python's zipfile) see a record hidden after the
 * counted ones, whose local header can sit inside another entry's stored bytes: an entry this scan
 * never looked at.
 */
function checkDirectory(entries: Array<{ entry: Entry }>, layout: Layout, prefix: string): void {
  let read = 0;
  for (const { entry } of entries)
    read += 46 + entry.fileNameLength + entry.extraFieldLength + entry.fileCommentLength;
  const cdSize = layout.cdEnd - layout.cdOffset;
  if (read !== cdSize)
    throw unsafe(
      'unaccounted_bytes',
      prefix || undefined,
      `central directory: ${cdSize - read} bytes outside the counted records`,
    );
}

/**
 * A small entry, inflated in one call from the bytes the central directory and the local header
 * agree on. `maxOutputLength` caps the output at the declared size, so a lying entry fails at once
 * without ever holding more than a declared (≤ 1 MiB) buffer.
 */
async function inflateSmall(
  buf: Buffer,
  entry: Entry,
  dataStart: number,
  ctx: ScanContext,
  depth: number,
  path: string,
): Promise<void> {
  const data = buf.subarray(dataStart, dataStart + entry.compressedSize);
  let out: Buffer;
  if (entry.compressionMethod === 0) {
    out = data;
  } else {
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(entry.uncompressedSize, 1) });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw unsafe('size_mismatch', path, 'more bytes than declared');
      throw unsafe('corrupt_entry', path, (e as Error).message);
    }
  }
  if (out.length !== entry.uncompressedSize) throw unsafe('size_mismatch', path);
  ctx.addExtracted(out.length, path);
  if (crc32(out) !== entry.crc32) throw unsafe('crc_mismatch', path);
  const inspector = new EntryInspector(ctx, path, depth);
  inspector.write(out);
  await inspector.end();
}

async function inflateEntry(
  zip: ZipFile,
  entry: Entry,
  ctx: ScanContext,
  depth: number,
  path: string,
): Promise<void> {
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (e) {
    throw unsafe('malformed_zip', path, (e as Error).message);
  }
  const inspector = new EntryInspector(ctx, path, depth);
  let crc = 0;
  let size = 0;
  const csize = Math.max(entry.compressedSize, 1);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > entry.uncompressedSize)
        throw unsafe('size_mismatch', path, 'more bytes than declared');
      ctx.addExtracted(chunk.length, path);
      if (size > ctx.limits.ratioMinBytes && size / csize > ctx.limits.maxRatio)
        throw unsafe('compression_ratio', path);
      crc = crc32(chunk, crc);
      inspector.write(chunk);
    }
  } catch (e) {
    stream.destroy();
    if (e instanceof ScanRejection) throw e;
    // yauzl's own checks (size mismatch, bad local header) and zlib errors land here.
    throw unsafe('corrupt_entry', path, (e as Error).message);
  }
  if (size !== entry.uncompressedSize) throw unsafe('size_mismatch', path);
  if (crc !== entry.crc32) throw unsafe('crc_mismatch', path);
  await inspector.end();
}
