import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { buildZip, uniqueProject, zipOf, type ZipEntrySpec } from '../helpers/archives.js';

/**
 * libarchive's 'xl' extra field (0x6c78) puts external attributes in a local header for streaming
 * extraction; bsdtar (Windows' tar.exe too) takes the entry's mode from it over the central
 * record's. A symlink declared only there is a symlink on the buyer's disk.
 */
const xl = (mode: number): Buffer => {
  const f = Buffer.alloc(11);
  f.writeUInt16LE(0x6c78, 0);
  f.writeUInt16LE(7, 2);
  f[4] = 0x05; // version made by + external attributes
  f.writeUInt16LE((3 << 8) | 30, 5); // Unix
  f.writeUInt32LE((mode << 16) >>> 0, 7);
  return f;
};

const project = (): ZipEntrySpec[] =>
  Object.entries(uniqueProject()).map(([name, data]) => ({ name, data, unixMode: 0o100644 }));

const scan = (entry: ZipEntrySpec) =>
  scanArchive(buildZip([...project(), entry]), 'zip', DEFAULT_SCAN_LIMITS);

describe("a link or special file declared in a zip's 'xl' extra field", () => {
  it.each([
    ['a symlink in the local header', { localExtra: xl(0o120777) }, 'symlink'],
    ['a FIFO in the local header', { localExtra: xl(0o010644) }, 'special_file'],
    [
      'a directory mode on a file in the local header',
      { localExtra: xl(0o040755) },
      'special_file',
    ],
    ['a symlink in the central record', { centralExtra: xl(0o120777) }, 'symlink'],
  ])('%s is refused', async (_what, extra, check) => {
    const out = await scan({
      name: 'etc-passwd',
      data: '/etc/passwd',
      unixMode: 0o100644,
      ...extra,
    });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check,
      file: 'etc-passwd',
    });
  });

  it('inside a nested zip', async () => {
    const inner = buildZip([
      { name: 'a.txt', data: 'a\n' },
      { name: 'link', data: '../../../etc', unixMode: 0o100644, localExtra: xl(0o120777) },
    ]);
    const out = await scanArchive(
      zipOf({ ...uniqueProject(), 'vendor/dep.zip': inner }),
      'zip',
      DEFAULT_SCAN_LIMITS,
    );
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'symlink',
      file: 'vendor/dep.zip!/link',
    });
  });

  it('a regular file and a directory as bsdtar writes them stay accepted', async () => {
    const out = await scanArchive(
      buildZip([
        ...project(),
        { name: 'docs/', unixMode: 0o040755, localExtra: xl(0o040755) },
        { name: 'docs/a.md', data: '# A\n', unixMode: 0o100644, localExtra: xl(0o100644) },
      ]),
      'zip',
      DEFAULT_SCAN_LIMITS,
    );
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});
