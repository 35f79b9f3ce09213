import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { CORPUS } from '../scan-corpus/index.js';

/**
 * The labelled corpus (test/scan-corpus, issue 23) through the real scan with the default limits:
 * every hostile case refused as unsafe with the finding its family expects, every benign project
 * accepted. `npm run bench -- scan_quality` prints the same as a table.
 */
describe('scan corpus', () => {
  const hostile = CORPUS.filter((c) => c.hostile);
  const benign = CORPUS.filter((c) => !c.hostile);

  it('has the size the issue asks for', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(150);
    expect(benign.length).toBeGreaterThanOrEqual(60);
  });

  it('refuses every hostile case with the expected finding', { timeout: 120_000 }, async () => {
    const wrong: string[] = [];
    for (const c of hostile) {
      const out = await scanArchive(await c.build(), c.compression, DEFAULT_SCAN_LIMITS);
      const checks = out.verdict === 'reject' ? out.findings.map((f) => f.check) : [];
      const ok =
        out.verdict === 'reject' &&
        out.reason === 'safety_checks_failed' &&
        (c.expectCheck === undefined || checks.includes(c.expectCheck));
      if (!ok)
        wrong.push(`${c.name}: expected ${c.expectCheck}, got ${out.verdict} ${checks.join(',')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('accepts every benign project', { timeout: 120_000 }, async () => {
    const refused: string[] = [];
    for (const c of benign) {
      const out = await scanArchive(await c.build(), c.compression, DEFAULT_SCAN_LIMITS);
      if (out.verdict === 'reject')
        refused.push(`${c.name}: ${out.reason} ${JSON.stringify(out.findings.slice(0, 2))}`);
    }
    expect(refused).toEqual([]);
  });
});
