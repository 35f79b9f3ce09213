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

export function checkEntryName(name: string, where: string): void {
  const shown = JSON.stringify(name.slice(0, 200));
  if (name.length === 0) throw unsafe('empty_name', where);
  if (name.length > 4096) throw unsafe('name_too_long', where);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw unsafe('control_character_in_name', shown);
  if (name.includes('\ufffd')) throw unsafe('undecodable_name', shown);
  if (name.includes('\\')) throw unsafe('backslash_in_name', shown);
  if (name.startsWith('/')) throw unsafe('absolute_path', shown);
  if (/^[A-Za-z]:/.test(name)) throw unsafe('drive_letter', shown);
  const segments = name.replace(/\/$/, '').split('/');
  for (const s of segments) {
    if (s === '..') throw unsafe('path_traversal', shown);
    if (s === '.' || s === '') throw unsafe('ambiguous_path_segment', shown);
  }
  if (segments.length > 64) throw unsafe('path_too_deep', shown);
}

/**
 * Tracks the names of one archive: exact duplicates, names that collide after case folding or
 * Unicode normalisation (they overwrite each other on common filesystems) and a file that is also
 * used as a directory are all refused.
 */
export class NameRegistry {
  private readonly seen = new Map<string, 'file' | 'dir'>();

  add(name: string, kind: 'file' | 'dir', where: string): void {
    const clean = name.replace(/\/$/, '');
    const key = clean.normalize('NFC').toLowerCase();
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
