import type { Finding } from './types.js';

/**
 * The seller's account of a refusal (issue 23): what to fix, never what was found. Each finding
 * keeps only the rule id, a kind, the file path and the line: a detail may quote an error message
 * or name another listing, so it is never passed through, and no rule ever records a secret's
 * value to begin with.
 */
export interface OwnerFinding {
  /** The rule that refused the archive (`symlink`, `secret`, `reserved_name`, ...). */
  rule: string;
  /**
   * The rule's family (`link`, `name`, `traversal`, `bomb`, `structure`, `complexity`,
   * `duplicate`, `processing`), or for content rules what was found (`evm_private_key`, `elf`...).
   */
  kind: string;
  file?: string;
  line?: number;
}

const FAMILY: Record<string, string> = {};
const family = (kind: string, rules: string) => {
  for (const r of rules.split(' ')) FAMILY[r] = kind;
};
family('link', 'symlink hard_link special_file unsupported_entry_type privileged_mode');
family(
  'name',
  'reserved_name trailing_dot_or_space windows_invalid_character duplicate_name file_used_as_directory ' +
    'control_character_in_name undecodable_name conflicting_names name_too_long empty_name',
);
family(
  'traversal',
  'path_traversal absolute_path drive_letter backslash_in_name ambiguous_path_segment path_too_deep',
);
family(
  'bomb',
  'compression_ratio extracted_size_limit too_many_entries nesting_too_deep nested_archive_too_large size_mismatch',
);
family(
  'structure',
  'bad_data_descriptor bad_local_header corrupt_entry crc_mismatch directory_with_content ' +
    'encrypted_entry local_header_mismatch malformed_gzip malformed_tar malformed_zip malformed_zip64 ' +
    'multi_disk_zip not_a_zip not_gzip overlapping_entries prepended_data stored_size_mismatch ' +
    'trailing_data unaccounted_bytes unrecognised_archive unscannable_archive unsupported_compression',
);
family('complexity', 'insufficient_complexity');
family('duplicate', 'near_duplicate');
family('processing', 'processing_error');

/** A detail that is a short identifier (a secret kind, an executable format), safe to show. */
const TOKEN = /^[a-z0-9][a-z0-9_.-]{0,47}$/i;

/** How many findings the owner sees (the scan keeps at most 50). */
export const MAX_OWNER_FINDINGS = 50;

export function ownerFindings(findings: readonly Finding[]): OwnerFinding[] {
  return findings.slice(0, MAX_OWNER_FINDINGS).map((f) => ({
    rule: f.check,
    kind: FAMILY[f.check] ?? (f.detail && TOKEN.test(f.detail) ? f.detail : 'structure'),
    ...(f.file !== undefined && { file: f.file.slice(0, 512) }),
    ...(f.line !== undefined && { line: f.line }),
  }));
}
