import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { uniqueProject } from '../helpers/archives.js';
import { rawTarGz, tarBlock, zipWithMode } from '../scan-corpus/build.js';

/**
 * A set-user-ID file in a purchase keeps its bit when an agent unpacks it as root (GNU tar's default
 * for the superuser). Before, the scan accepted the bit on any file the content rules let through.
 */
const verdict = async (bytes: Buffer, c: 'zip' | 'tar.gz') => {
  const out = await scanArchive(bytes, c, DEFAULT_SCAN_LIMITS);
  return out.verdict === 'reject' ? out.findings[0]!.check : 'accept';
};
const SCRIPT = '#!/bin/sh\nid\n';

describe('privileged modes', () => {
  it.each([
    ['a set-user-ID script', 'tools/run.sh', 0o4755, '0'],
    ['a set-user-ID file without execute', 'notes.txt', 0o4644, '0'],
    ['a set-group-ID script', 'tools/run.sh', 0o2755, '0'],
    ['a set-user-ID directory', 'bin', 0o4755, '5'],
  ])('tar: %s is refused', async (_, name, mode, type) => {
    const tgz = rawTarGz(uniqueProject(), [
      tarBlock({ name, mode, type }, type === '0' ? SCRIPT : ''),
    ]);
    expect(await verdict(tgz, 'tar.gz')).toBe('privileged_mode');
  });

  it.each([
    ['unix', 3],
    ['atari', 5],
  ])('zip: a set-user-ID script made on %s is refused', async (_, host) => {
    const zip = zipWithMode(uniqueProject(), {
      name: 'run.sh',
      data: SCRIPT,
      mode: 0o104755,
      host,
    });
    expect(await verdict(zip, 'zip')).toBe('privileged_mode');
  });

  it('zip: a set-group-ID file is refused', async () => {
    const zip = zipWithMode(uniqueProject(), {
      name: 'a.sh',
      data: SCRIPT,
      mode: 0o102755,
      host: 3,
    });
    expect(await verdict(zip, 'zip')).toBe('privileged_mode');
  });

  it('ordinary modes, and a set-group-ID directory (a shared-group folder), are accepted', async () => {
    const tgz = rawTarGz(uniqueProject(), [
      tarBlock({ name: 'shared/', mode: 0o2775, type: '5' }),
      tarBlock({ name: 'shared/run.sh', mode: 0o755 }, SCRIPT),
      tarBlock({ name: 'tmp/', mode: 0o1777, type: '5' }),
    ]);
    expect(await verdict(tgz, 'tar.gz')).toBe('accept');
    const zip = zipWithMode(uniqueProject(), {
      name: 'run.sh',
      data: SCRIPT,
      mode: 0o100755,
      host: 3,
    });
    expect(await verdict(zip, 'zip')).toBe('accept');
  });
});
