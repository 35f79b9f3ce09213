import type { CorpusCase } from '../types.js';
import {
  baseProject,
  filesCase,
  gnuLongBlock,
  hostileCase,
  nest,
  pack,
  paxBlock,
  rawTarGz,
  tarBlock,
} from '../build.js';

/**
 * Names that would land outside the extraction folder or that tools read differently: `..`
 * segments (plain, deep, after a harmless prefix), absolute paths (also through the ustar prefix
 * field, pax `path` and GNU long names), backslashes, drive letters, control characters, empty and
 * `.` segments, absurd lengths and depths, in both compressions and inside nested archives.
 */
const F = 'traversal';
const owned = 'echo owned\n';
const plain = (variant: string, check: string, path: string) =>
  filesCase(F, variant, check, () => ({ [path]: owned }));

export const cases: CorpusCase[] = [
  ...plain('dotdot', 'path_traversal', '../../../../tmp/marketplace-slip'),
  ...plain('dotdot-after-prefix', 'path_traversal', 'src/lib/../../../etc/cron.d/job'),
  ...plain('dotdot-deep-dir', 'path_traversal', 'a/b/c/d/e/../../../../../../../x'),
  ...plain('dotslash-dotdot', 'path_traversal', './../outside.txt'),
  ...plain('absolute', 'absolute_path', '/tmp/marketplace-slip-abs'),
  ...plain('absolute-home', 'absolute_path', '/home/user/.bashrc'),
  ...plain('backslash', 'backslash_in_name', '..\\..\\Windows\\evil.bat'),
  ...plain('drive-letter', 'drive_letter', 'C:/Windows/System32/evil.dll.txt'),
  ...plain('control-character', 'control_character_in_name', 'src/a\u0007b.ts'),
  ...plain('empty-segment', 'ambiguous_path_segment', 'src//index2.ts'),
  ...plain('dot-segment', 'ambiguous_path_segment', 'src/./again.ts'),
  ...plain('nfkc-two-dot-leader', 'path_traversal', 'src/\u2025/\u2025/etc/profile'),
  ...plain('nfkc-fullwidth-dots', 'path_traversal', '\uff0e\uff0e\uff0fevil.sh'),
  ...plain('too-deep', 'path_too_deep', `${'d/'.repeat(70)}x.txt`),
  hostileCase(F, 'ustar-prefix-absolute', 'tar.gz', 'absolute_path', (n) =>
    rawTarGz(baseProject(n), [tarBlock({ name: 'profile', prefix: '/etc' }, owned)]),
  ),
  hostileCase(F, 'pax-path-dotdot', 'tar.gz', 'path_traversal', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ path: '../../.bashrc' }),
      tarBlock({ name: 'bashrc.txt' }, owned),
    ]),
  ),
  hostileCase(F, 'pax-path-absolute', 'tar.gz', 'absolute_path', (n) =>
    rawTarGz(baseProject(n), [
      paxBlock({ path: '/usr/local/bin/node' }),
      tarBlock({ name: 'node.txt' }, owned),
    ]),
  ),
  hostileCase(F, 'gnu-longname-dotdot', 'tar.gz', 'path_traversal', (n) =>
    rawTarGz(baseProject(n), [
      gnuLongBlock('L', `${'../'.repeat(40)}etc/passwd`),
      tarBlock({ name: 'passwd.txt' }, owned),
    ]),
  ),
  hostileCase(F, 'dotdot-after-end-blocks', 'tar.gz', 'path_traversal', (n) =>
    rawTarGz(baseProject(n), [], [tarBlock({ name: '../late.sh' }, owned)]),
  ),
  hostileCase(F, 'nested-dotdot', 'zip', 'path_traversal', async (n) =>
    nest('zip', n, 'vendor/pkg.tar.gz', await pack('tar.gz', { '../../x.sh': owned })),
  ),
  hostileCase(F, 'nested-absolute', 'tar.gz', 'absolute_path', async (n) =>
    nest('tar.gz', n, 'libs/tools.zip', await pack('zip', { '/etc/cron.d/x': owned })),
  ),
];
