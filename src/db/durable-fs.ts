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
 * - `makeFsyncDurable` gives NODEFS the `fsync` it lacks: `fs.fsyncSync` on the real file.
 */
export const DURABLE_SETTINGS = ['-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];

interface EmscriptenStream {
  nfd?: number;
}
interface PGliteModule {
  FS: { filesystems?: { NODEFS?: { stream_ops?: Record<string, unknown> } } };
}

export function makeFsyncDurable(module: unknown): void {
  const ops = (module as PGliteModule).FS.filesystems?.NODEFS?.stream_ops;
  if (!ops) throw new Error('PGlite has no NODEFS to make durable');
  ops.fsync = (stream: EmscriptenStream) => {
    if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd);
    return 0;
  };
}
