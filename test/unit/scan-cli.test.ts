import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS } from '../scan-corpus/index.js';

/**
 * The local check a REST seller runs before paying (`artifact-marketplace-scan <archive>`): the
 * same scanArchive, findings as the owner's status shows them, exit code 1 on a refusal.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'scan-cli-'));
const cli = path.resolve('src/domain/scan/cli.ts');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8' });
const write = async (name: string, caseName: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, await CORPUS.find((c) => c.name === caseName)!.build());
  return file;
};

describe('artifact-marketplace-scan', () => {
  it('exits 1 with the findings of a hostile archive', { timeout: 30_000 }, async () => {
    const res = run(await write('links.zip', 'links/zip-symlink-host-atari-zip'));
    expect(res.status).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({
      verdict: 'reject',
      reason: 'safety_checks_failed',
      findings: [{ rule: 'symlink', kind: 'link', file: 'etc-passwd' }],
    });
  });

  it('exits 0 for an ordinary project (.tgz by its name)', { timeout: 30_000 }, async () => {
    const res = run(await write('project.tgz', 'benign-go/project-1-tar.gz'));
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ verdict: 'accept', compression: 'tar.gz' });
  });

  it('exits 2 with the usage on bad input', { timeout: 30_000 }, () => {
    const res = run();
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('usage: artifact-marketplace-scan');
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'hello\n');
    expect(run(text).status).toBe(2);
  });
});
