import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isServingCommand } from '../command-names.js';
import { creatingMarker, madeDirectories } from './durable-dirs.js';
import { lockDataDir, type Lock } from './lock.js';

/**
 * A first start's data directory made while the service's modules load (issue 25).
 *
 * On a fresh data directory a start copies the migrated template the build ships (./template.ts):
 * about a second of unpacking and syncing 1,200 files, which needs nothing but the directory's path.
 * The process entry (src/main.ts) of a serving command that will open the embedded database on
 * disk takes the directory's lock and begins that work on a thread of its own, before it loads the
 * rest of the service; openDatabase (./index.ts) adopts the lock and the directory made. Node
 * built-ins, ./lock.ts, ./durable-dirs.ts and ../command-names.ts only are loaded here, before the
 * thread starts.
 */

/** What the early start did, for openDatabase to adopt. */
export interface EarlyDataDir {
  /** The lock taken for this process (openDatabase releases it at close). */
  release: () => Promise<void>;
  /** The template was unpacked into the data directory (it holds a database now). */
  made: boolean;
}

let begun: { dataDir: string; done: Promise<EarlyDataDir> } | undefined;

const OFF = ['false', '0', 'no'];

/**
 * The data directory (DATA_DIR/pg) where a process started with `command` will open the embedded
 * database on disk, read from the environment as src/config.ts reads it (an empty value is unset);
 * undefined for one-shot commands (they may hand their work to a running service), with
 * DATABASE_URL, or in memory.
 */
export function servedDataDir(
  command: string,
  env: Record<string, string | undefined>,
): string | undefined {
  if (!isServingCommand(command)) return undefined;
  if (env.DATABASE_URL) return undefined;
  // anything but an explicit "off" is left to the configuration (in memory, or an error it reports)
  if (env.EMBEDDED_DB_IN_MEMORY && !OFF.includes(env.EMBEDDED_DB_IN_MEMORY)) return undefined;
  return path.resolve(env.DATA_DIR || './data', 'pg');
}

/**
 * What the unpacking thread runs: the template's own syncDirectories (for the directories the entry
 * made on the way to the data directory), findTemplate and unpackTemplate.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.template)
  .then(async (t) => {
    await t.syncDirectories(workerData.madeDirs);
    const found = await t.findTemplate();
    if (!found.ok) return { made: false };
    await t.unpackTemplate(found.tarball, workerData.dataDir);
    return { made: true };
  })
  .then(
    (r) => parentPort.postMessage(r),
    (e) => parentPort.postMessage({ error: String((e && e.message) || e) }),
  );`;

/**
 * When `dataDir` holds no database yet: locks it for this process and unpacks the template into it
 * on a thread of its own, now. Anything that goes wrong (the lock held, no template, a failed
 * unpack) is left for openDatabase to meet as it would have without this: it then locks and makes
 * the directory itself, with its own errors and log lines. The built entry only (the thread loads
 * ./template.js as plain JavaScript).
 */
export function beginFirstStart(dataDir: string): void {
  if (!import.meta.url.endsWith('.js')) return;
  const version = path.join(dataDir, 'PG_VERSION');
  // a database, or one half made in place (openDatabase discards and makes that one itself)
  const made = () => existsSync(version) || existsSync(creatingMarker(dataDir));
  if (made()) return;
  // synchronously: the modules about to load hold the event loop, so no callback would run before
  // they are loaded, and the thread must start now
  let lock: Lock;
  let madeDirs: string[];
  try {
    const parent = path.dirname(dataDir);
    // the ones made now are synced on the thread, with the database's own directories
    madeDirs = madeDirectories(parent, mkdirSync(parent, { recursive: true }));
    lock = lockDataDir(dataDir);
  } catch {
    return;
  }
  if (!('release' in lock)) return;
  const { release } = lock;
  // checked again under the lock: another process may have made it meanwhile
  const done = made()
    ? Promise.resolve(false)
    : unpackOnThread(dataDir, madeDirs).catch(() => false);
  begun = { dataDir, done: done.then((made) => ({ release, made })) };
}

async function unpackOnThread(dataDir: string, madeDirs: string[]): Promise<boolean> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { template: new URL('./template.js', import.meta.url).href, dataDir, madeDirs },
  });
  try {
    return await new Promise<boolean>((resolve, reject) => {
      worker.once('message', (m: { made?: boolean; error?: string }) =>
        m.error === undefined ? resolve(m.made === true) : reject(new Error(m.error)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the unpacking thread exited (${code})`)));
    });
  } finally {
    void worker.terminate();
  }
}

/**
 * openDatabase's part: what the early start did for `dataDir`, once it is done (taken once);
 * undefined when none was begun for it. One begun for another directory (the configuration
 * resolved DATA_DIR otherwise) gives its lock back once done.
 */
export function takeFirstStart(dataDir: string): Promise<EarlyDataDir> | undefined {
  const early = begun;
  begun = undefined;
  if (!early) return undefined;
  if (early.dataDir === dataDir) return early.done;
  void early.done.then((e) => e.release());
  return undefined;
}
