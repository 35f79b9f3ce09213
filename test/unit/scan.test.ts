import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import type { ScanLimits } from '../../src/scan/types.js';
import { buildTarGz, buildZip, tarGzOf, uniqueProject, zipOf } from '../helpers/archives.js';
import { BENIGN_PROJECTS } from '../helpers/corpus.js';
import { hostileCorpus } from '../helpers/hostile.js';

// the deployed defaults, so the corpora are judged exactly as production judges them
const limits: ScanLimits = scanLimits(loadConfig({}));

describe('scanArchive: hostile corpus', async () => {
  const corpus = await hostileCorpus();
  it.each(corpus.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const out = await scanArchive(c.bytes, c.compression, limits);
    expect(out.verdict).toBe('reject');
    if (out.verdict !== 'reject') return;
    expect(out.reason).toBe(c.reason);
    expect(out.findings[0]?.check).toBe(c.check);
    if (c.finding) expect(out.findings[0]).toEqual(c.finding);
    if (c.secret) expect(JSON.stringify(out)).not.toContain(c.secret);
  });
});

describe('scanArchive: benign corpus', () => {
  for (const [name, files] of Object.entries(BENIGN_PROJECTS)) {
    it(`accepts ${name} as zip and tar.gz`, async () => {
      for (const [compression, bytes] of [
        ['zip', zipOf(files)],
        ['tar.gz', await tarGzOf(files)],
      ] as const) {
        const out = await scanArchive(bytes, compression, limits);
        expect(
          out,
          `${name} ${compression}: ${JSON.stringify(out.verdict === 'reject' && out.findings)}`,
        ).toMatchObject({
          verdict: 'accept',
        });
      }
    });
  }
  it('accepts what real tools write: ./ prefixes, directory entries, data descriptors, Unix modes', async () => {
    const files = Object.entries(BENIGN_PROJECTS['go-cli']!);
    const tgz = await buildTarGz([
      { name: './', type: 'directory' },
      ...files.map(([name, data]) => ({ name: `./${name}`, data })),
    ]);
    expect((await scanArchive(tgz, 'tar.gz', limits)).verdict).toBe('accept');
    const zip = buildZip([
      { name: 'wc/', unixMode: 0o040755 },
      ...files.map(([name, data]) => ({
        name: `wc/${name}`,
        data,
        descriptor: true,
        unixMode: 0o100644,
      })),
    ]);
    expect((await scanArchive(zip, 'zip', limits)).verdict).toBe('accept');
  });

  it('accepts a nested archive within the depth limit', async () => {
    const files = { ...uniqueProject(), 'vendor/lib.zip': zipOf(uniqueProject()) };
    const out = await scanArchive(zipOf(files), 'zip', limits);
    expect(out.verdict).toBe('accept');
    expect(out.stats.nestedArchives).toBe(1);
  });
});

describe('configurable limits', () => {
  it('too many entries, total extracted size, nesting depth 0', async () => {
    const files = {
      ...uniqueProject(),
      'a.ts': 'export const a = 1;\n',
      'b.ts': 'export const b = 2;\n',
    };
    const tooMany = await scanArchive(zipOf(files), 'zip', { ...limits, maxEntries: 4 });
    expect(tooMany).toMatchObject({
      verdict: 'reject',
      reason: 'safety_checks_failed',
      findings: [{ check: 'too_many_entries' }],
    });
    const tooBig = await scanArchive(await tarGzOf(files), 'tar.gz', {
      ...limits,
      maxExtractedBytes: 2048,
    });
    expect(tooBig).toMatchObject({
      verdict: 'reject',
      findings: [{ check: 'extracted_size_limit' }],
    });
    const nested = await scanArchive(
      zipOf({ ...files, 'lib.zip': zipOf(uniqueProject()) }),
      'zip',
      { ...limits, maxNestingDepth: 0 },
    );
    expect(nested).toMatchObject({ verdict: 'reject', findings: [{ check: 'nesting_too_deep' }] });
  });
});

describe('secret findings', () => {
  it('report file and line, never the secret', async () => {
    const key = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const files = { ...uniqueProject(), 'src/ci.ts': `// ci\n\nexport const token = '${key}';\n` };
    const out = await scanArchive(zipOf(files), 'zip', limits);
    expect(out).toMatchObject({ verdict: 'reject', reason: 'safety_checks_failed' });
    if (out.verdict !== 'reject') return;
    expect(out.findings).toEqual([
      { check: 'secret:token', file: 'src/ci.ts', line: 3, detail: 'github_token' },
    ]);
    expect(JSON.stringify(out.findings)).not.toContain(key.slice(4));
  });
});
