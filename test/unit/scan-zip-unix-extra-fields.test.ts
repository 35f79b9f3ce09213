import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import {
  asiUnixField,
  buildZip,
  pkwareUnixField,
  uniqueProject,
  zipOf,
  type ZipEntrySpec,
} from '../helpers/archives.js';

/**
 * The Unix extra fields ASi (0x756e) and PKWARE (0x000d) can each declare a link. Info-ZIP UnZip
 * takes an entry's mode from an ASi field when the central record's upper 16 bits are zero, and
 * makes a symlink of an S_IFLNK mode (unix/unix.c, mapattr). No extractor reads a link from the
 * PKWARE field yet (UnZip, 7-Zip and libarchive read its times and IDs), but its variable part
 * exists only for links and devices, so a file carrying one is refused too.
 */
const project = (): ZipEntrySpec[] =>
  Object.entries(uniqueProject()).map(([name, data]) => ({ name, data, unixMode: 0o100644 }));

const scan = (entry: ZipEntrySpec) =>
  scanArchive(buildZip([...project(), entry]), 'zip', DEFAULT_SCAN_LIMITS);

/** Made by Unix, upper 16 bits of the external attributes zero: UnZip looks at the ASi field. */
const link = (extra: Partial<ZipEntrySpec>): ZipEntrySpec => ({
  name: 'etc-passwd',
  data: '/etc/passwd',
  method: 0,
  unixMode: 0,
  ...extra,
});

describe('a link or special file declared in an ASi or PKWARE Unix extra field', () => {
  it.each([
    ['an ASi symlink mode, central record', { centralExtra: asiUnixField(0o120777) }, 'symlink'],
    ['an ASi symlink mode, local header', { localExtra: asiUnixField(0o120777) }, 'symlink'],
    [
      'an ASi symlink mode under Unix file attributes',
      { unixMode: 0o100644, centralExtra: asiUnixField(0o120777, '/etc/passwd') },
      'symlink',
    ],
    [
      'an ASi link target with a file mode',
      { centralExtra: asiUnixField(0o100644, '/etc/passwd') },
      'symlink',
    ],
    ['an ASi FIFO mode', { centralExtra: asiUnixField(0o010644) }, 'special_file'],
    ['an ASi directory mode on a file', { centralExtra: asiUnixField(0o040755) }, 'special_file'],
    [
      'a PKWARE link target, central record',
      { centralExtra: pkwareUnixField('/etc/passwd') },
      'symlink',
    ],
    [
      'a PKWARE link target, local header',
      { localExtra: pkwareUnixField('/etc/shadow') },
      'symlink',
    ],
  ])('%s is refused', async (_what, extra, check) => {
    const out = await scan(link(extra));
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check,
      file: 'etc-passwd',
    });
  });

  it('inside a nested zip', async () => {
    const inner = buildZip([
      { name: 'a.txt', data: 'a\n' },
      link({ centralExtra: asiUnixField(0o120777) }),
    ]);
    const out = await scanArchive(
      zipOf({ ...uniqueProject(), 'vendor/dep.zip': inner }),
      'zip',
      DEFAULT_SCAN_LIMITS,
    );
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'symlink',
      file: 'vendor/dep.zip!/etc-passwd',
    });
  });

  it('a file and a directory with honest ASi and PKWARE fields stay accepted', async () => {
    const both = (mode: number) => Buffer.concat([asiUnixField(mode), pkwareUnixField()]);
    const out = await scanArchive(
      buildZip([
        ...project(),
        { name: 'docs/', unixMode: 0, centralExtra: both(0o040755), localExtra: both(0o040755) },
        {
          name: 'docs/a.md',
          data: '# A\n',
          unixMode: 0,
          centralExtra: both(0o100644),
          localExtra: both(0o100644),
        },
      ]),
      'zip',
      DEFAULT_SCAN_LIMITS,
    );
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});

const unzip = spawnSync('unzip', ['-v'], { encoding: 'utf8' });
const unzipLinks = unzip.status === 0 && unzip.stdout.includes('SYMLINKS');

describe.skipIf(!unzipLinks)('the hostile bytes, as Info-ZIP UnZip extracts them', () => {
  it('an ASi symlink mode with zero upper attributes becomes a symlink on disk', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'asi-unzip-'));
    try {
      writeFileSync(
        path.join(dir, 'a.zip'),
        buildZip([link({ centralExtra: asiUnixField(0o120777) })]),
      );
      execFileSync('unzip', ['-q', 'a.zip', '-d', 'out'], { cwd: dir });
      const made = path.join(dir, 'out', 'etc-passwd');
      expect(lstatSync(made).isSymbolicLink()).toBe(true);
      expect(readlinkSync(made)).toBe('/etc/passwd');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
