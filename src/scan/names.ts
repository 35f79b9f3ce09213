import { unsafe } from './types.js';

/**
 * Entry names are checked as raw strings, never resolved against a directory: anything that could
 * land outside the extraction root on any platform, or that two tools could read differently, is
 * refused (spec: traversal, absolute paths, drive letters, backslashes, NUL and control characters).
 */
/**
 * `tar czf x.tgz .` names every entry `./…` and adds `./` itself: a leading `./` is dropped (and
 * the bare root entry yields an empty name, which callers skip). Any other `.` segment is refused.
 */
export function stripCurrentDir(name: string): string {
  let n = name;
  while (n.startsWith('./')) n = n.slice(2);
  return n === '.' ? '' : n;
}

/**
 * Refuses a name that could land outside the extraction root or read differently elsewhere. The
 * finding's file is the entry's path (`outer.zip!/…` inside a nested archive); its detail is the
 * name quoted (JSON), so that control characters and the like are shown escaped.
 */
export function checkEntryName(name: string, where: string): void {
  const shown = JSON.stringify(name.slice(0, 200));
  const refuse = (check: string, why?: string) =>
    unsafe(check, where, why ? `${shown} ${why}` : shown);
  if (name.length === 0) throw unsafe('empty_name', where);
  if (name.length > 4096) throw unsafe('name_too_long', where);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw refuse('control_character_in_name');
  if (name.includes('\ufffd')) throw refuse('undecodable_name');
  if (name.includes('\\')) throw refuse('backslash_in_name');
  if (name.startsWith('/')) throw refuse('absolute_path');
  if (/^[A-Za-z]:/.test(name)) throw refuse('drive_letter');
  const segments = name.replace(/\/$/, '').split('/');
  for (const s of segments) {
    if (s === '..') throw refuse('path_traversal');
    if (s === '.' || s === '') throw refuse('ambiguous_path_segment');
  }
  if (segments.length > 64) throw refuse('path_too_deep');
  // Compatibility forms (`‥`, fullwidth `．` and `／`) read as `..` and `/` by tools that normalise.
  const folded = name.normalize('NFKC');
  if (folded !== name && folded.split(/[/\\]/).includes('..'))
    throw refuse('path_traversal', 'after Unicode normalisation');
  for (const s of segments) {
    const check = portableSegment(s);
    if (check) throw refuse(check);
  }
}

/** Windows device names: the stem before the first dot, any case, any extension. */
const RESERVED_STEM =
  /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)$/i;
/** Characters Windows refuses in a name (`:` also opens an NTFS alternate data stream). */
const WINDOWS_INVALID = /[<>:"|?*]/;

/**
 * A segment every common filesystem can hold as written: Windows strips trailing dots and spaces
 * (two names become one, or a name its reader did not see), opens a device for `CON`, `NUL`,
 * `COM1`... whatever the extension, and refuses `<>:"|?*`. Returns the check it fails, if any.
 */
function portableSegment(s: string): string | undefined {
  if (s.endsWith('.') || s.endsWith(' ')) return 'trailing_dot_or_space';
  const dot = s.indexOf('.');
  const stem = (dot < 0 ? s : s.slice(0, dot)).trimEnd();
  if (RESERVED_STEM.test(stem)) return 'reserved_name';
  if (WINDOWS_INVALID.test(s)) return 'windows_invalid_character';
  return undefined;
}

/**
 * The key under which two names land on the same file somewhere: compatibility normalisation
 * (NFKC: `ﬁ` is `fi`, fullwidth `Ａ` is `A`) and full case folding (`ß` is `ss`), as
 * case-insensitive and normalising filesystems (APFS, NTFS, SMB shares) compare them.
 */
export function collisionKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * Tracks the names of one archive: exact duplicates, names that collide after case folding or
 * Unicode normalisation (NFC, NFKC; they overwrite each other on common filesystems) and a file
 * that is also used as a directory are all refused.
 */
export class NameRegistry {
  private readonly seen = new Map<string, 'file' | 'dir'>();

  add(name: string, kind: 'file' | 'dir', where: string): void {
    const clean = name.replace(/\/$/, '');
    const key = collisionKey(clean);
    const prev = this.seen.get(key);
    if (prev !== undefined) {
      // A directory entry may repeat implicitly (zip tools do not all emit them); files may not.
      if (!(prev === 'dir' && kind === 'dir')) throw unsafe('duplicate_name', where);
    }
    this.seen.set(key, kind);
    // Every parent must be (or become) a directory, never a file.
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      const p = this.seen.get(parent);
      if (p === 'file') throw unsafe('file_used_as_directory', where);
      if (p === undefined) this.seen.set(parent, 'dir');
    }
  }
}
