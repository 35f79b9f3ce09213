#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ownerFindings } from '../../scan/findings.js';
import { scanArchive, type Compression } from '../../scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../scan/types.js';

/**
 * `artifact-marketplace-scan <archive> [zip|tar.gz]` (`node dist/src/domain/scan/cli.js`): the
 * marketplace's scan, the same scanArchive the worker and the MCP server's pre-check run, over a
 * local archive before paying the listing fee. Prints one JSON object: the verdict, the public
 * reason and the findings as the owner's status shows them (rule, kind, file, line). Exit code 0
 * when the archive would pass, 1 when it would be refused, 2 on bad usage. The near-duplicate
 * rule needs the marketplace's catalogue and is not run here.
 */
const USAGE =
  'usage: artifact-marketplace-scan <archive.zip | archive.tar.gz | archive.tgz> [zip|tar.gz]';

export function compressionOf(
  file: string,
  bytes: Buffer,
  given?: string,
): Compression | undefined {
  if (given === 'zip' || given === 'tar.gz') return given;
  if (given === 'tgz') return 'tar.gz';
  if (given !== undefined) return undefined;
  if (/\.zip$/i.test(file)) return 'zip';
  if (/\.(tar\.gz|tgz)$/i.test(file)) return 'tar.gz';
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'zip';
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  return undefined;
}

export async function runScanCli(argv: string[]): Promise<{ code: number; out: string }> {
  const [file, given] = argv;
  if (!file || file === '-h' || file === '--help' || argv.length > 2)
    return { code: 2, out: USAGE };
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    return { code: 2, out: `cannot read ${file}: ${(e as Error).message}` };
  }
  const compression = compressionOf(file, bytes, given);
  if (!compression) return { code: 2, out: `${file}: not a zip or tar.gz archive\n${USAGE}` };
  const outcome = await scanArchive(bytes, compression, DEFAULT_SCAN_LIMITS);
  const report =
    outcome.verdict === 'accept'
      ? { verdict: 'accept', compression, stats: outcome.stats }
      : {
          verdict: 'reject',
          compression,
          reason: outcome.reason,
          findings: ownerFindings(outcome.findings),
          stats: outcome.stats,
        };
  return { code: outcome.verdict === 'accept' ? 0 : 1, out: JSON.stringify(report, null, 2) };
}

/** Run as a program (also through the `bin` symlink npx creates), not imported by a test. */
function isMain(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const { code, out } = await runScanCli(process.argv.slice(2));
  (code === 2 ? process.stderr : process.stdout).write(`${out}\n`);
  process.exitCode = code;
}
