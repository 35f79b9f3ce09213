import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * The embedded database's lock (a pid file beside its data directory). Node built-ins only, and
 * synchronous (a few system calls): the process entry takes it for a first start's data directory
 * (./first-start.ts) while the service's modules load, when no callback would run until they are
 * loaded; openDatabase (./index.ts) takes it otherwise.
 */

/** Taken: how to give it back; else the live process that holds it. */
export type Lock = { release: () => Promise<void> } | { holder: number };

/**
 * PGlite has no postmaster: two processes opening one data directory would corrupt it. A pid file
 * makes the second one (a `npm run worker`, `migrate` or `reindex` beside a running `npm start`)
 * stop with a clear message instead; a file left by a dead process is taken over. The file also
 * names the directory it locks (its real path): a copy of a live data directory (a backup taken
 * with `cp -a`) carries the file along, and must not count as held by the original's process.
 */
export function lockDataDir(dataDir: string): Lock {
  const file = lockFile(dataDir);
  const dir = realpathSync(path.dirname(file));
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = lockHolder(file, dir);
      if (pid !== undefined) return { holder: pid };
      rmSync(file, { force: true }); // stale: its process is gone, or it locked another directory
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, dir }));
    } finally {
      closeSync(fd);
    }
    return { release: () => rm(file, { force: true }) };
  }
  throw new Error(`could not lock the embedded database in ${path.dirname(file)}`);
}

export const lockFile = (pgDir: string) => path.join(pgDir, '..', 'embedded-db.pid');

/**
 * The live process holding the lock in `file` for the directory `dir`, if any. A file written
 * before the lock named its directory holds the pid alone, and counts as it did then.
 */
export function lockHolder(file: string, dir: string): number | undefined {
  let text = '';
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    // gone meanwhile: held by no one
  }
  let lock: { pid?: unknown; dir?: unknown };
  try {
    lock = text.startsWith('{') ? (JSON.parse(text) as typeof lock) : { pid: Number(text) };
  } catch {
    return undefined;
  }
  const pid = typeof lock.pid === 'number' ? lock.pid : 0;
  if (!pid || !isAlive(pid)) return undefined;
  return lock.dir === undefined || lock.dir === dir ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
