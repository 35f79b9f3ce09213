import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import { cases as benign } from '../scan-corpus/families/benign-secrets-lookalikes.js';
import { cases as code } from '../scan-corpus/families/code.js';
import { cases as secrets } from '../scan-corpus/families/secrets.js';

/**
 * The content families of the labelled corpus (issue 23) through the real scan: every hostile
 * case refused as unsafe by the rule it was built for, every benign look-alike accepted.
 */
const limits = scanLimits(loadConfig({}));

describe('hostile content families', () => {
  const hostile = [...secrets, ...code];

  it('hold 70 or more cases, each family in zip and tar.gz, at the root and nested', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(70);
    expect(hostile.every((c) => c.hostile && c.expectCheck)).toBe(true);
    for (const family of new Set(hostile.map((c) => c.family))) {
      const names = hostile.filter((c) => c.family === family).map((c) => c.name);
      for (const tail of ['@root-zip', '@root-tar.gz', '@nested-zip', '@nested-tar.gz'])
        expect(
          names.some((n) => n.endsWith(tail)),
          `${family} ${tail}`,
        ).toBe(true);
    }
  });

  it.each(hostile.map((c) => [c.name, c] as const))('%s is refused', async (_, c) => {
    const out = await scanArchive(await c.build(), c.compression, limits);
    expect(out).toMatchObject({ verdict: 'reject', reason: 'safety_checks_failed' });
    if (out.verdict !== 'reject') return;
    const finding = out.findings.find((f) => f.check === c.expectCheck);
    expect(finding, JSON.stringify(out.findings)).toBeDefined();
    // the kind names what was found, in a few words; the file is the entry's path
    expect(finding!.detail).toMatch(/^[\w.:-]{1,60}$/);
    expect(finding!.file).toBeTruthy();
  });
});

describe('benign look-alikes', () => {
  it.each(benign.map((c) => [c.name, c] as const))('%s is accepted', async (_, c) => {
    expect(c.hostile).toBe(false);
    const out = await scanArchive(await c.build(), c.compression, limits);
    expect(out, JSON.stringify(out.verdict === 'reject' && out.findings)).toMatchObject({
      verdict: 'accept',
    });
  });
});
