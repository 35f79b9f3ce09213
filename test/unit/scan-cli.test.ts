import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScanCli } from '../../src/domain/scan/cli.js';
import { CORPUS } from '../scan-corpus/index.js';

/**
 * The local check a REST seller runs before paying (`artifact-marketplace-scan <archive>`): the
 * same scanArchive, findings as the owner's status shows them, exit code 1 on a refusal.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'scan-cli-'));
const write = async (name: string, caseName: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, await CORPUS.find((c) => c.name === caseName)!.build());
  return file;
};

describe('artifact-marketplace-scan', () => {
  it(
    'as a program: prints the findings of a hostile archive and exits 1',
    { timeout: 30_000 },
    async () => {
      const file = await write('links.zip', 'links/zip-symlink-host-atari-zip');
      const res = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.resolve('src/domain/scan/cli.ts'), file],
        { encoding: 'utf8' },
      );
      expect(res.status, res.stderr).toBe(1);
      expect(JSON.parse(res.stdout)).toMatchObject({
        verdict: 'reject',
        reason: 'safety_checks_failed',
        findings: [{ rule: 'symlink', kind: 'link', file: 'etc-passwd' }],
      });
    },
  );

  it('0 for an ordinary project (.tgz by its name)', async () => {
    const { code, out } = await runScanCli([
      await write('project.tgz', 'benign-go/project-1-tar.gz'),
    ]);
    expect(code, out).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ verdict: 'accept', compression: 'tar.gz' });
  });

  it('2 with the usage on bad input', async () => {
    expect(await runScanCli([])).toMatchObject({ code: 2, out: expect.stringContaining('usage') });
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'hello\n');
    expect((await runScanCli([text])).code).toBe(2);
    expect((await runScanCli([text, 'rar'])).code).toBe(2);
    expect((await runScanCli([path.join(dir, 'missing.zip')])).code).toBe(2);
  });
});
