import { open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * A directory's entries (the files and directories in it) reach the disk when the directory itself
 * is synced, not when the files are: what a first start makes (./template.ts, ./first-start.ts)
 * syncs each directory it made before the database counts as made. Node built-ins only: the
 * process entry loads this before the service's modules (./first-start.ts).
 */

/**
 * Syncs the directories `dirs` (their entries: the files and directories in them) deepest first,
 * each after every one below it, as Postgres's fsync_pgdata walks a data directory; those at one
 * depth at once (they are independent, and the disk's waits overlap).
 */
export async function syncDirectories(dirs: Iterable<string>): Promise<void> {
  const byDepth = new Map<number, string[]>();
  for (const dir of new Set([...dirs].map((d) => path.resolve(d)))) {
    const depth = dir.split(path.sep).length;
    byDepth.set(depth, [...(byDepth.get(depth) ?? []), dir]);
  }
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a))
    await Promise.all(byDepth.get(depth)!.map(fsync));
}

/**
 * The directories to sync so that the ones `mkdir(dir, { recursive: true })` made (`first`, the
 * highest it made, is what it returns; undefined when it made none) survive a crash: each one made
 * (the entry of the next below it) and the parent of the highest (its own entry).
 */
export function madeDirectories(dir: string, first: string | undefined): string[] {
  if (first === undefined) return [];
  const made = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    made.push(d);
    if (d === path.resolve(first) || d === path.dirname(d)) break;
  }
  return [...made, path.dirname(path.resolve(first))];
}

/** Syncs one file or directory. */
export async function fsync(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * A database being made in place (PGlite's initdb in the data directory, or a tarball PGlite
 * unpacks there itself): the marker beside the data directory, written and synced before the
 * directory is made, removed once the database is open and every file of it synced. A process
 * killed in between leaves `PG_VERSION` in a half-made directory; with the marker still there the
 * next start discards the directory and makes it again instead of opening it. (The migrated
 * template is unpacked beside it and renamed instead: ./template.ts.)
 */
export const creatingMarker = (dataDir: string) => `${path.resolve(dataDir)}.creating`;

/** Writes the marker for `dataDir` and syncs it and its entry. */
export async function markCreating(dataDir: string): Promise<void> {
  const marker = creatingMarker(dataDir);
  const handle = await open(marker, 'w', 0o600);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsync(path.dirname(marker));
}

/**
 * The database made in `dataDir` is whole: every file and directory in it synced (deepest
 * directories first), then the marker removed and its removal synced.
 */
export async function doneCreating(dataDir: string): Promise<void> {
  const root = path.resolve(dataDir);
  const dirs = [root];
  const files: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) dirs.push(full);
    else if (entry.isFile()) files.push(full);
  }
  for (let i = 0; i < files.length; i += SYNC_LANES)
    await Promise.all(files.slice(i, i + SYNC_LANES).map(fsync));
  await syncDirectories(dirs);
  await rm(creatingMarker(root), { force: true });
  await fsync(path.dirname(root));
}

/** Files synced at once by doneCreating (the disk's waits overlap). */
const SYNC_LANES = 16;
