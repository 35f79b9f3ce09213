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
  FS: {
    filesystems?: { NODEFS?: { stream_ops?: Record<string, unknown> } };
    ErrnoError: new (errno: number) => Error;
  };
}

/** Emscripten's errno for EIO. */
const EIO = 29;

/** Refuses to go on once a sync failed; call it before a batch runs and before its replies go out. */
export interface DurableGuard {
  check(): void;
}

export const NOT_DURABLE: DurableGuard = { check() {} };

/**
 * A failed sync is fatal, as Postgres makes it (PANIC: the page cache may have dropped what it could
 * not write, so retrying would report success for lost data). The hook answers Postgres with EIO,
 * which it PANICs on, and the guard refuses the batch that met it, its replies included, and every
 * batch after: nothing is acknowledged that may not be on disk. A plain error thrown into the
 * WebAssembly was swallowed: the commit was acknowledged and the next batch hung.
 */
export function makeFsyncDurable(module: unknown): DurableGuard {
  const { FS } = module as PGliteModule;
  const ops = FS.filesystems?.NODEFS?.stream_ops;
  if (!ops) throw new Error('PGlite has no NODEFS to make durable');
  let failed: Error | undefined;
  ops.fsync = (stream: EmscriptenStream) => {
    if (failed) throw new FS.ErrnoError(EIO);
    if (stream.nfd === undefined) return 0;
    try {
      fs.fsyncSync(stream.nfd);
    } catch (e) {
      failed = new Error(`the embedded database could not sync a file to disk: ${String(e)}`);
      throw new FS.ErrnoError(EIO);
    }
    return 0;
  };
  return {
    check() {
      if (failed) throw failed;
    },
  };
}
