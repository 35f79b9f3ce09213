import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * One MCP server process per data directory (`MCP_DATA_DIR`). Its state file holds the signed
 * payments still pending and the 24-hour ledger; two processes on it would each read, change and
 * rename it (one's reservation lost to the other's write: the budget passed) and each re-send the
 * same pending payment. So the entry takes `<dir>/mcp.lock` for its whole life, with
 * proper-lockfile (an atomic mkdir, its mtime refreshed every `staleMs / 2`): a second process
 * waits up to `waitMs` for it, then refuses to start with a message naming the directory. A holder
 * that crashed (SIGKILL, power loss) stops refreshing it; once `staleMs` old the lock is taken
 * over, so the wait outlasts that. The lock goes when the holder exits.
 */
export class DataDirLocked extends Error {
  constructor(readonly dir: string) {
    super(
      `Another MCP server is running on the data directory ${dir} (MCP_DATA_DIR); two cannot share it ` +
        '(its state file holds the pending payments and the spending ledger). Stop the other one, or give this one ' +
        'its own MCP_DATA_DIR (its own ledger and orders).',
    );
    this.name = 'DataDirLocked';
  }
}

export interface DataDirLockOptions {
  /** A lock not refreshed for this long is a crashed holder's (default 10 s). */
  staleMs?: number;
  /** How long a second process waits for the lock before refusing (default staleMs + 3 s). */
  waitMs?: number;
  /** The lock was lost while held (its file removed, or refreshing failed): stop using the state. */
  onCompromised: (err: Error) => void;
}

/** Takes the data directory's lock; resolves to its release. Throws `DataDirLocked` when busy. */
export async function lockDataDir(
  dir: string,
  opts: DataDirLockOptions,
): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stale = opts.staleMs ?? 10_000;
  const wait = opts.waitMs ?? stale + 3_000;
  const step = 500;
  try {
    return await lockfile.lock(dir, {
      lockfilePath: path.join(dir, 'mcp.lock'),
      realpath: false,
      stale,
      update: Math.max(1_000, stale / 2),
      retries: {
        retries: Math.ceil(wait / step),
        factor: 1,
        minTimeout: step,
        maxTimeout: step,
      },
      onCompromised: opts.onCompromised,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLocked(dir);
    throw err;
  }
}
