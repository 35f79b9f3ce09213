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
