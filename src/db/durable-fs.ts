import fs from 'node:fs';

/**
 * Durable commits for the embedded database. PGlite starts Postgres with `-F` (fsync off), and
 * even with `fsync=on` its Emscripten NODEFS has no `fsync`: Postgres's flush of the WAL at commit
 * reached the operating system's page cache and no further, so a power loss could drop a payment
 * already acknowledged. Turned on, every commit's WAL is on disk before the commit is acknowledged:
 *
 * - `DURABLE_SETTINGS` override `-F` (`fsync=on`) and flush the WAL with `fsync()` (the one sync
 *   call Emscripten routes to the file system; its `fdatasync` is a no-op), `synchronous_commit`
 *   staying Postgres's default `on`;
 * - `makeFsyncDurable` gives NODEFS the `fsync` it lacks: `fs.fsyncSync` on the real file.
 *
 * A group commit: a WAL segment's fsync (a file directly under `pg_wal/`) is recorded as pending
 * and done later, once for every commit of the batch that asked for it. Postgres's ordering is
 * kept: whatever it would have made durable before a later step is durable before that step.
 * The pending syncs are done before
 *
 * - any reply of the batch goes out (`DurableGuard.check`, called by both wire backends): no
 *   commit is acknowledged before the sync that covers it;
 * - any file-system step that is not a write to a WAL segment or a relation's extension (below):
 *   a write to, truncation of or sync of any other file (data files, `pg_control`, `pg_xact`:
 *   Postgres writes them only after the WAL they depend on is flushed, and that flush is what is
 *   pending), any create, rename, unlink, rmdir, symlink or attribute change, and the close of a
 *   file whose sync is pending (an fd number is reused after close, so it is never synced later);
 * - the end of the event-loop turn (`setImmediate`), whoever ran the statement.
 *
 * A write to a WAL segment may go ahead of a pending sync: the sync, when it runs, covers it too,
 * as the next commit's sync would have. So may a relation's extension: Postgres grows a table or
 * an index by writing zero-filled pages past the end of its file, not WAL-logged and dependent on
 * no WAL (an all-zero page is a valid empty one, and a crash may leave one behind in any case).
 * Settling before each one cost a repeat purchase a third of a sync on average (stop 55). These
 * are every NODEFS operation that can change the disk (Emscripten's `node_ops` and `stream_ops`;
 * `msync` goes through `stream_ops.write`), hooked here in one place.
 */
export const DURABLE_SETTINGS = ['-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];

interface EmscriptenNode {
  name: string;
  parent: EmscriptenNode;
}
interface EmscriptenStream {
  nfd?: number;
  node?: EmscriptenNode;
}
type Op = (...args: never[]) => unknown;
type StreamOp = (s: EmscriptenStream, ...rest: unknown[]) => unknown;
interface PGliteModule {
  FS: {
    filesystems?: {
      NODEFS?: { stream_ops?: Record<string, Op>; node_ops?: Record<string, Op> };
    };
    ErrnoError: new (errno: number) => Error;
  };
}

/** Emscripten's errno for EIO. */
const EIO = 29;

/** NODEFS operations that change what is on disk, every one behind the pending WAL syncs. */
const NODE_OPS = ['setattr', 'mknod', 'rename', 'unlink', 'rmdir', 'symlink'] as const;

/**
 * Refuses to go on once a sync failed; call it before a batch runs and before its replies go
 * out. Before its replies it also does the WAL syncs the batch's commits left pending.
 */
export interface DurableGuard {
  check(): void;
}

export const NOT_DURABLE: DurableGuard = { check() {} };

function isWal(stream: EmscriptenStream): boolean {
  // a segment (or Postgres's `xlogtemp.*` before its rename) directly under the data dir's pg_wal
  return stream.node?.parent.name === 'pg_wal';
}

/** Zeros to compare a write with, a block at a time (Postgres extends by whole 8 kB pages). */
const ZEROS = new Uint8Array(64 * 1024);

/**
 * A write of zeros only, at or past the end of the file: a relation's extension (Postgres's
 * `mdzeroextend`), which nothing on disk depends on. A page of data fails at its first bytes (its
 * LSN); only an all-zero write costs the file's size.
 */
function isExtension(
  fd: number,
  bytes: Uint8Array,
  offset: number,
  length: number,
  position: number,
) {
  for (let at = 0; at < length; at += ZEROS.length) {
    const n = Math.min(ZEROS.length, length - at);
    const piece = Buffer.from(bytes.buffer, bytes.byteOffset + offset + at, n);
    if (!piece.equals(ZEROS.subarray(0, n))) return false;
  }
  return position >= fs.fstatSync(fd).size;
}

/**
 * A failed sync is fatal, as Postgres makes it (PANIC: the page cache may have dropped what it could
 * not write, so retrying would report success for lost data). The hook answers Postgres with EIO,
 * which it PANICs on, and the guard refuses the batch that met it, its replies included, and every
 * batch after: nothing is acknowledged that may not be on disk. A plain error thrown into the
 * WebAssembly was swallowed: the commit was acknowledged and the next batch hung. A deferred sync
 * that fails has already been reported done to Postgres: every file-system call after it answers
 * EIO, and the guard refuses the batch's replies and every later batch all the same.
 */
export function makeFsyncDurable(module: unknown): DurableGuard {
  const { FS } = module as PGliteModule;
  const nodefs = FS.filesystems?.NODEFS;
  const stream = nodefs?.stream_ops;
  const node = nodefs?.node_ops;
  if (!stream || !node) throw new Error('PGlite has no NODEFS to make durable');
  let failed: Error | undefined;
  const pending = new Set<number>();
  let scheduled = false;

  /**
   * A WAL segment is flushed with fdatasync(2), as Postgres flushes its WAL on Linux by default
   * (`wal_sync_method=fdatasync`, which Emscripten would turn into a no-op): the data and the
   * metadata needed to read it back (a new segment's size and blocks), not its timestamps, whose
   * journal commit fsync(2) also waits for. Every other file keeps fsync(2).
   */
  function sync(fd: number, wal = false) {
    try {
      if (wal) fs.fdatasyncSync(fd);
      else fs.fsyncSync(fd);
    } catch (e) {
      failed = new Error(`the embedded database could not sync a file to disk: ${String(e)}`);
      throw new FS.ErrnoError(EIO);
    }
  }
  /** Every pending WAL sync, in the order asked; throws EIO once one failed. */
  function settle() {
    if (failed) throw new FS.ErrnoError(EIO);
    for (const fd of pending) {
      pending.delete(fd);
      sync(fd, true);
    }
  }
  function settleLater() {
    scheduled = false;
    try {
      settle();
    } catch {
      // recorded in `failed`: the next file-system call and the next batch refuse
    }
  }

  const write = stream.write as StreamOp;
  stream.write = function (
    this: unknown,
    s: EmscriptenStream,
    bytes: Uint8Array,
    offset: number,
    length: number,
    position: number,
    ...rest: unknown[]
  ) {
    if (failed) throw new FS.ErrnoError(EIO);
    if (
      pending.size &&
      !isWal(s) &&
      !(s.nfd !== undefined && isExtension(s.nfd, bytes, offset, length, position))
    )
      settle();
    return write.call(this, s, bytes, offset, length, position, ...rest);
  } as Op;
  const close = stream.close as StreamOp;
  stream.close = function (this: unknown, s: EmscriptenStream, ...rest: unknown[]) {
    if (s.nfd !== undefined && pending.has(s.nfd)) settle();
    return close.call(this, s, ...rest);
  } as Op;
  const setattr = stream.setattr!;
  stream.setattr = function (this: unknown, ...args: never[]) {
    settle();
    return setattr.apply(this, args);
  } as Op;
  for (const name of NODE_OPS) {
    const op = node[name]!;
    node[name] = function (this: unknown, ...args: never[]) {
      settle();
      return op.apply(this, args);
    } as Op;
  }
  stream.fsync = ((s: EmscriptenStream) => {
    if (failed) throw new FS.ErrnoError(EIO);
    if (s.nfd === undefined) return 0;
    if (isWal(s)) {
      pending.add(s.nfd);
      if (!scheduled) {
        scheduled = true;
        setImmediate(settleLater);
      }
      return 0;
    }
    settle();
    sync(s.nfd);
    return 0;
  }) as Op;

  return {
    check() {
      if (!failed && pending.size) {
        try {
          settle();
        } catch {
          // recorded in `failed`, thrown below
        }
      }
      if (failed) throw failed;
    },
  };
}
