import { describe, expect, it } from 'vitest';
import { ownerFindings } from '../../src/scan/findings.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { buildTarGz, buildZip, uniqueProject, zipOf } from '../helpers/archives.js';

/** A name-rule finding names the entry by its path (what the owner looks for), quoted in detail. */
const withEntry = (name: string) => [
  ...Object.entries(uniqueProject()).map(([n, data]) => ({ name: n, data })),
  { name, data: 'x\n' },
];
const firstFinding = async (bytes: Buffer, c: 'zip' | 'tar.gz') => {
  const out = await scanArchive(bytes, c, DEFAULT_SCAN_LIMITS);
  return out.verdict === 'reject' ? out.findings[0] : undefined;
};

describe('name findings carry the entry path', () => {
  it.each([
    ['../escape.txt', 'path_traversal'],
    ['docs/CON.txt', 'reserved_name'],
    ['a\u0007b.txt', 'control_character_in_name'],
  ])('zip: %j', async (name, check) => {
    const f = await firstFinding(buildZip(withEntry(name)), 'zip');
    expect(f).toEqual({ check, file: name, detail: JSON.stringify(name) });
    expect(ownerFindings([f!])[0]).toMatchObject({ rule: check, file: name });
  });

  it('tar.gz', async () => {
    const f = await firstFinding(await buildTarGz(withEntry('src/../../escape.txt')), 'tar.gz');
    expect(f).toMatchObject({ check: 'path_traversal', file: 'src/../../escape.txt' });
  });

  it('inside a nested archive, with the outer prefix', async () => {
    const inner = buildZip(withEntry('../escape.txt'));
    const f = await firstFinding(zipOf({ ...uniqueProject(), 'vendor/dep.zip': inner }), 'zip');
    expect(f).toEqual({
      check: 'path_traversal',
      file: 'vendor/dep.zip!/../escape.txt',
      detail: '"../escape.txt"',
    });
  });
});
