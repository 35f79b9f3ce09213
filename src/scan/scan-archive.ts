import { ScanContext } from './content.js';
import type { PreviewCollector } from './preview.js';
import { scanGzip, scanTar } from './targz.js';
import {
  ScanRejection,
  unsafe,
  type EntrySink,
  type ScanLimits,
  type ScanOutcome,
} from './types.js';
import { scanZip } from './zip.js';

export type Compression = 'zip' | 'tar.gz';

/**
 * The safety scan of one archive, entirely in memory and streaming (nothing is extracted to disk).
 * Order of verdicts: the first structural safety failure stops the scan at once; then content
 * findings (executables, secrets) refuse it as unsafe; then the complexity rule. The near-duplicate
 * rule needs the database and runs after this (see scan-job.ts). With a `sink`, the outer
 * archive's files are handed over as they are inflated (see EntrySink). With a `preview`
 * collector, the buyer's preview is gathered in the same pass (it never changes the verdict).
 */
export async function scanArchive(
  bytes: Buffer,
  compression: Compression,
  limits: ScanLimits,
  sink?: EntrySink,
  preview?: PreviewCollector,
): Promise<ScanOutcome> {
  const ctx = new ScanContext(limits, bytes.length, sink);
  ctx.preview = preview;
  ctx.scanNested = async (nested, path, depth) => {
    const b0 = nested[0];
    const b1 = nested[1];
    if (nested.length >= 4 && nested.readUInt32BE(0) >>> 16 === 0x504b)
      return scanZip(nested, ctx, depth, path);
    if (b0 === 0x1f && b1 === 0x8b) return scanGzip(nested, ctx, depth, path);
    if (nested.length >= 262 && nested.toString('latin1', 257, 262) === 'ustar')
      return scanTar(nested, ctx, depth, path);
    throw unsafe('unrecognised_archive', path);
  };
  try {
    if (compression === 'zip') await scanZip(bytes, ctx, 0, '');
    else await scanGzip(bytes, ctx, 0, '');
  } catch (e) {
    if (e instanceof ScanRejection)
      return { verdict: 'reject', reason: e.reason, findings: e.findings, stats: ctx.stats };
    throw e;
  }
  ctx.stats.distinctSourceLines = ctx.sourceLineHashes.size;
  if (ctx.findings.length) {
    return {
      verdict: 'reject',
      reason: 'safety_checks_failed',
      findings: ctx.findings,
      stats: ctx.stats,
    };
  }
  if (ctx.stats.sourceFiles === 0 || ctx.sourceLineHashes.size < limits.minSourceLines) {
    return {
      verdict: 'reject',
      reason: 'insufficient_complexity',
      findings: [
        {
          check: 'insufficient_complexity',
          detail: `${ctx.sourceLineHashes.size} distinct meaningful source lines in ${ctx.stats.sourceFiles} source files (minimum ${limits.minSourceLines})`,
        },
      ],
      stats: ctx.stats,
    };
  }
  return {
    verdict: 'accept',
    stats: ctx.stats,
    signature: ctx.sketch.signature(),
    lineCount: ctx.meaningfulLines,
  };
}
