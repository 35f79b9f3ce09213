import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { meaningfulLineHash } from '../../src/scan/content.js';
import { Sketch } from '../../src/scan/fingerprint.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import type { ScanLimits } from '../../src/scan/types.js';
import { tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import { freshMnemonic } from '../helpers/wallet-secrets.js';

/**
 * The scan's walk over text lines, seen from outside: the near-duplicate fingerprint is built from
 * trimmed lines whatever the line endings and indentation, and a secret is found on its line
 * wherever the inflater's chunk boundaries fall (files over 1 MiB are streamed in chunks).
 */
const limits: ScanLimits = scanLimits(loadConfig({}));

/** The fingerprint as documented: MinHash over meaningfulLineHash of every line of every file. */
function expectedSignature(files: Files): number[] {
  const sketch = new Sketch();
  for (const text of Object.values(files))
    for (const line of String(text).split('\n')) {
      const h = meaningfulLineHash(line);
      if (h) sketch.add(h);
    }
  return sketch.signature();
}

describe('fingerprint of the lines', () => {
  it('is the MinHash of the trimmed lines: CRLF, trailing blanks and indentation change nothing', async () => {
    const files = uniqueProject();
    const reformatted = Object.fromEntries(
      Object.entries(files).map(([name, text]) => [
        name,
        String(text)
          .split('\n')
          .map((l, i) => (i % 3 === 0 ? `\t  ${l} \t` : i % 3 === 1 ? `${l}  \r` : `    ${l}\r`))
          .join('\n'),
      ]),
    );
    const a = await scanArchive(zipOf(files), 'zip', limits);
    const b = await scanArchive(zipOf(reformatted), 'zip', limits);
    const c = await scanArchive(await tarGzOf(reformatted), 'tar.gz', limits);
    expect(a.verdict).toBe('accept');
    if (a.verdict !== 'accept' || b.verdict !== 'accept' || c.verdict !== 'accept') return;
    expect(a.signature).toEqual(expectedSignature(files));
    expect(b.signature).toEqual(a.signature);
    expect(c.signature).toEqual(a.signature);
    expect(b.lineCount).toBe(a.lineCount);
  });
});

describe('secrets in large files (streamed in chunks)', () => {
  /** About 1.2 MiB of ordinary code with `secret` on line `at`, whose bytes straddle 640 KiB. */
  function bigFile(secret: string, crlf: boolean): { text: string; line: number } {
    const eol = crlf ? '\r\n' : '\n';
    const lines: string[] = [];
    let size = 0;
    const straddle = 640 * 1024 - Math.floor(secret.length / 2);
    let line = 0;
    for (let i = 0; size < 1.2 * 1024 * 1024; i++) {
      if (!line && size >= straddle - 80) {
        // pad so that the secret's line starts just before the boundary
        const pad = ' '.repeat(Math.max(0, straddle - size - 12));
        lines.push(`${pad}x = ${i};`);
        size += pad.length + `x = ${i};`.length + eol.length;
        lines.push(`  ${secret}  `);
        line = lines.length;
        size += secret.length + 4 + eol.length;
        continue;
      }
      const l = `  const value_${i} = compute(${i}, 'item ${i % 97}') + offset;`;
      lines.push(l);
      size += l.length + eol.length;
    }
    return { text: lines.join(eol) + eol, line };
  }

  const aws = () =>
    'AKIA' +
    Array.from(randomBytes(16), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('');
  const cases: Array<[string, () => string, string, string]> = [
    ['an AWS key id', () => `aws_key_id = "${aws()}"`, 'aws_access_key_id', 'secret:token'],
    [
      'a PEM private key header (with its body: a header alone is not a key)',
      () => `"key": "-----BEGIN RSA PRIVATE KEY-----\\n${randomBytes(48).toString('base64')}\\n"`,
      'private_key',
      'secret:private_key_block',
    ],
    [
      'a mnemonic phrase',
      () => `MNEMONIC="${freshMnemonic()}"`,
      'bip39_mnemonic',
      'secret:mnemonic',
    ],
  ];
  for (const crlf of [false, true])
    it.each(cases)(
      `%s across a chunk boundary (${crlf ? 'CRLF' : 'LF'})`,
      async (_, make, kind, check) => {
        const { text, line } = bigFile(make(), crlf);
        const files = { ...uniqueProject(), 'src/big.ts': text };
        for (const out of [
          await scanArchive(zipOf(files), 'zip', limits),
          await scanArchive(await tarGzOf(files), 'tar.gz', limits),
        ]) {
          expect(out).toMatchObject({ verdict: 'reject', reason: 'safety_checks_failed' });
          if (out.verdict !== 'reject') return;
          expect(out.findings).toEqual([{ check, file: 'src/big.ts', line, detail: kind }]);
        }
      },
    );

  it('a secret on a last line without a newline, after blank and whitespace-only lines', async () => {
    const key = aws();
    const files = {
      ...uniqueProject(),
      'config/keys.py': `# keys\n\n   \n\t\r\n\nAWS_ID = "${key}"`,
    };
    const out = await scanArchive(zipOf(files), 'zip', limits);
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [
        { check: 'secret:token', file: 'config/keys.py', line: 6, detail: 'aws_access_key_id' },
      ],
    });
  });
});
