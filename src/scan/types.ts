/**
 * Shared vocabulary of the scan. A finding is the detailed, operator-only account of why an
 * archive was refused (check name, file, line); the public side only ever sees the compact reason.
 * Findings never contain the offending content itself (no secret values, no file bytes).
 */
export type PublicRejection =
  'safety_checks_failed' | 'insufficient_complexity' | 'duplicate_content';

export interface Finding {
  check: string;
  /** Path of the entry inside the archive (`outer.zip!/inner/path` inside nested archives). */
  file?: string;
  line?: number;
  detail?: string;
}

export interface ScanLimits {
  maxExtractedBytes: number;
  maxRatio: number;
  ratioMinBytes: number;
  maxEntries: number;
  maxNestingDepth: number;
  /** Largest nested archive that is buffered to be scanned in turn. */
  maxNestedBytes: number;
  minSourceLines: number;
}

/** The marketplace's default limits (the defaults of `SCAN_*` and `MAX_ARCHIVE_BYTES` in src/config.ts). */
export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxExtractedBytes: 209_715_200,
  maxRatio: 100,
  ratioMinBytes: 1_048_576,
  maxEntries: 10_000,
  maxNestingDepth: 1,
  maxNestedBytes: 10_485_760,
  minSourceLines: 20,
};

/**
 * Receives the files of the outer archive as the scan inflates them (how a client unpacks with
 * the scan's own rules). `open` is called only after the entry's name passed every check; the
 * caller keeps what it wrote only when the whole scan accepts the archive.
 */
export interface EntrySink {
  open(path: string): { write(chunk: Buffer): void; end(): void };
}

export interface ScanStats {
  entries: number;
  files: number;
  extractedBytes: number;
  sourceFiles: number;
  /** Distinct meaningful source lines, counted up to the complexity minimum. */
  distinctSourceLines: number;
  nestedArchives: number;
}

export type ScanOutcome =
  | { verdict: 'accept'; stats: ScanStats; signature: number[]; lineCount: number }
  | { verdict: 'reject'; reason: PublicRejection; findings: Finding[]; stats: ScanStats };

/** Thrown inside the scan to stop at the first structural safety failure. */
export class ScanRejection extends Error {
  constructor(
    readonly reason: PublicRejection,
    readonly findings: Finding[],
  ) {
    super(`${reason}: ${findings.map((f) => f.check).join(', ')}`);
    this.name = 'ScanRejection';
  }
}

export function unsafe(check: string, file?: string, detail?: string): ScanRejection {
  return new ScanRejection('safety_checks_failed', [
    { check, ...(file !== undefined && { file }), ...(detail !== undefined && { detail }) },
  ]);
}
