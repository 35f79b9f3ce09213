import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { demoArchive } from '../../src/domain/discovery/demo.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { similarity } from '../../src/scan/fingerprint.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';

const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true' });

describe('demo archives', () => {
  const signatures: Array<[string, number[]]> = [];

  it.each(DEMO_LISTINGS.map((l) => [l.title, l] as const))(
    '%s: passes the scan as an upload would',
    async (_title, listing) => {
      const bytes = await demoArchive(listing);
      const outcome = await scanArchive(bytes, 'tar.gz', scanLimits(config));
      expect(outcome.verdict === 'reject' ? outcome : 'accept').toBe('accept');
      if (outcome.verdict === 'accept') {
        expect(outcome.stats.distinctSourceLines).toBeGreaterThanOrEqual(
          config.SCAN_MIN_SOURCE_LINES,
        );
        signatures.push([listing.title, outcome.signature]);
      }
    },
  );

  it('are no near-duplicates of one another (the scan would refuse the second)', () => {
    expect(signatures).toHaveLength(DEMO_LISTINGS.length);
    for (let i = 0; i < signatures.length; i++)
      for (let j = i + 1; j < signatures.length; j++) {
        const s = similarity(signatures[i]![1], signatures[j]![1]);
        expect(s, `${signatures[i]![0]} vs ${signatures[j]![0]}`).toBeLessThan(
          config.SCAN_DUPLICATE_THRESHOLD,
        );
      }
  });
});
