import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { badRequest } from '../../errors.js';
import type { Compression } from '../../scan/scan-archive.js';

const TAR_BLOCK = 512;

const notAnArchive = (compression: Compression, why: string) =>
  badRequest('unsupported_archive', `the file is not a readable ${compression} archive: ${why}`);

/**
 * The archive's structure, checked before any fee is due (a file that only begins with the magic
 * bytes is refused here, not after the fee). zip: the end-of-central-directory record is found and
 * every central directory record reads (yauzl; names are not judged here, that is the scan's
 * work). tar.gz: the gzip header is valid and the first tar header reads with a valid checksum
 * (tar-stream), decompressing no more than that block.
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
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', () => zip.readEntry());
    zip.on('end', () => resolve());
    zip.on('error', (e: Error) => reject(notAnArchive('zip', e.message)));
    zip.readEntry();
  });
}

/** The compressed bytes in small slices, so gunzip never inflates much past what is read. */
function* slices(buf: Buffer, size = 1024): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function checkTarGz(bytes: Buffer): Promise<void> {
  // The first 512-byte tar block after the gzip header (a truncated or endless stream stops early).
  const head: Buffer[] = [];
  let have = 0;
  try {
    for await (const chunk of Readable.from(slices(bytes)).pipe(createGunzip())) {
      head.push(chunk as Buffer);
      have += (chunk as Buffer).length;
      if (have >= TAR_BLOCK) break;
    }
  } catch (e) {
    throw notAnArchive('tar.gz', `gzip: ${(e as Error).message}`);
  }
  const block = Buffer.concat(head, have).subarray(0, TAR_BLOCK);
  if (block.length < TAR_BLOCK) throw notAnArchive('tar.gz', 'no tar header after gzip');
  // tar-stream parses the header (checksum included) and announces the entry, or fails.
  const extract = tar.extract();
  const first = new Promise<void>((resolve, reject) => {
    extract.on('entry', (_header, stream) => {
      // Only the header was fed: the entry's body ends early, which is expected here.
      stream.on('error', () => {});
      stream.resume();
      resolve();
    });
    extract.on('error', reject);
    extract.on('close', () => reject(new Error('no tar header')));
  });
  extract.end(block);
  try {
    await first;
  } catch (e) {
    throw notAnArchive('tar.gz', (e as Error).message);
  } finally {
    extract.destroy();
  }
}
