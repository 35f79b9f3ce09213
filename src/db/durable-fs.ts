import fs from 'node:fs';

/**
 * Durable commits for the embedded database. PGlite starts Postgres with `-F` (fsync off), and
 * even with `fsync=on` its Emscripten NODEFS has no `fsync`: Postgres's flush of the WAL at commit
 * reached the operating system's page cache and no further, so a power loss could drop a payment
 * already acknowledged. Turned on, every commit waits for its WAL to be on disk:
 *
 * - `DURABLE_SETTINGS` override `-F` (`fsync=on`) and flush the WAL with `fsync()` (the one sync
 *   call Emscripten routes to the file system; its `fdatasync` is a no-op), `synchronous_commit`
 *   staying Postgres's default `on`;
 * - `makeFsyncDurable` gives NODEFS the `fsync` it lacks, on the real file: `fs.fdatasyncSync` for
 *   a WAL segment (Postgres's own default on Linux, `wal_sync_method=fdatasync`: a segment is
 *   written inside the size it was created with, so its data is all a commit needs on the disk,
 *   not its modification time, whose journal commit `fsync` adds), `fs.fsyncSync` for every other
 *   file and directory (data files at a checkpoint, a new segment's directory entry).
 */
export const DURABLE_SETTINGS = ['-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];

interface EmscriptenStream {
  nfd?: number;
  /** The file's path inside PGlite's file system. */
  path?: string;
}

/** A WAL segment file (24 hex digits under pg_wal/). */
const WAL_SEGMENT = /\/pg_wal\/[0-9A-F]{24}$/;
interface PGliteModule {
  FS: { filesystems?: { NODEFS?: { stream_ops?: Record<string, unknown> } } };
}

export function makeFsyncDurable(module: unknown): void {
  const ops = (module as PGliteModule).FS.filesystems?.NODEFS?.stream_ops;
  if (!ops) throw new Error('PGlite has no NODEFS to make durable');
  ops.fsync = (stream: EmscriptenStream) => {
    if (stream.nfd === undefined) return 0;
    if (stream.path !== undefined && WAL_SEGMENT.test(stream.path)) fs.fdatasyncSync(stream.nfd);
    else fs.fsyncSync(stream.nfd);
    return 0;
  };
}
