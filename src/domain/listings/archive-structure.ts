import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { badRequest } from '../../errors.js';
import type { Compression } from '../../scan/scan-archive.js';
import { tarFormatReason } from '../../scan/targz.js';

const TAR_BLOCK = 512;
/**
 * How much of a tar.gz is inflated before the fee to find a file among its first headers: an
 * archive that ends within this many bytes without one holds nothing to sell.
 */
const TAR_LOOKAHEAD = 64 * 1024;

const notAnArchive = (compression: Compression, why: string) =>
  badRequest('unsupported_archive', `the file is not a readable ${compression} archive: ${why}`);

/** A readable archive with no file in it: the scan would refuse it after the fee, so refuse it now. */
const noFiles = (compression: Compression) =>
  badRequest('unsupported_archive', `the ${compression} archive holds no files`);

/**
 * The archive's structure, checked before any fee is due (a file that only begins with the magic
 * bytes is refused here, not after the fee). zip: the end-of-central-directory record is found and
 * every central directory record reads (yauzl; names are not judged here, that is the scan's
 * work), and one of them is a file, not a folder. tar.gz: the gzip header is valid and the first
 * tar header reads with a valid checksum (tar-stream); an archive whose end comes within its first
 * 64 KiB inflated with no file before it (an empty tar, folders only) is refused too. Nothing past
 * that is inflated here.
 */
export async function checkArchiveStructure(
  bytes: Buffer,
  compression: Compression,
): Promise<void> {
  if (compression === 'zip') await checkZip(bytes);
  else await checkTarGz(bytes);
}

async function checkZip(bytes: Buffer): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(bytes, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (e) {
    throw notAnArchive('zip', (e as Error).message);
  }
  let files = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      // names are Buffers here (decodeStrings false); a folder's ends with a slash
      const name = entry.fileName as unknown as Buffer;
      const last = name[name.length - 1];
      if (name.length > 0 && last !== 0x2f && last !== 0x5c) files++;
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (e: Error) => reject(notAnArchive('zip', e.message)));
    zip.readEntry();
  });
  if (files === 0) throw noFiles('zip');
}

/** The compressed bytes in small slices, so gunzip never inflates much past what is read. */
function* slices(buf: Buffer, size = 1024): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function checkTarGz(bytes: Buffer): Promise<void> {
  // At most TAR_LOOKAHEAD inflated bytes (a truncated or endless stream stops early).
  const head: Buffer[] = [];
  let have = 0;
  let whole = true; // the gzip stream ended within the lookahead
  try {
    for await (const chunk of Readable.from(slices(bytes)).pipe(createGunzip())) {
      head.push(chunk as Buffer);
      have += (chunk as Buffer).length;
      if (have >= TAR_LOOKAHEAD) {
        whole = false;
        break;
      }
    }
  } catch (e) {
    throw notAnArchive('tar.gz', `gzip: ${(e as Error).message}`);
  }
  const inflated = Buffer.concat(head, have).subarray(0, TAR_LOOKAHEAD);
  if (inflated.length < TAR_BLOCK) throw notAnArchive('tar.gz', 'no tar header after gzip');
  // tar-stream parses each header (checksum included) and announces its entry, or fails. The
  // first header must read; past it, the cut at the lookahead ends an entry early, which is
  // expected: only an archive read to its end with no file in it is refused.
  const extract = tar.extract();
  const verdict = new Promise<'file' | 'no file' | 'unknown'>((resolve, reject) => {
    let entries = 0;
    extract.on('entry', (header, stream, next) => {
      entries++;
      if (header.type === 'file' || header.type === 'contiguous-file') resolve('file');
      stream.on('error', () => {});
      stream.on('end', next);
      stream.resume();
    });
    extract.on('error', (e) => (entries > 0 ? resolve('unknown') : reject(e)));
    extract.on('finish', () =>
      entries === 0 ? reject(new Error('no tar header')) : resolve(whole ? 'no file' : 'unknown'),
    );
    extract.on('close', () => reject(new Error('no tar header')));
  });
  extract.end(inflated);
  let found: 'file' | 'no file' | 'unknown';
  try {
    found = await verdict;
  } catch (e) {
    throw notAnArchive('tar.gz', tarFormatReason((e as Error).message));
  } finally {
    extract.destroy();
  }
  if (found === 'no file') throw noFiles('tar.gz');
}
