import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WasmModule } from './parser-baseline.js';
import type { WireBackend } from './pglite-wire.js';

/**
 * The embedded PGlite on a worker thread of its own (./pglite-thread-worker.ts): the main thread
 * hands it each batch of wire-protocol messages and gets the replies back, so signature checks,
 * HTTP and JSON on the main thread overlap with the database's WASM on the second core. The data
 * directory is opened exactly as in process; only where the WASM runs changes.
 */
export interface ThreadInit {
  dataDir?: string;
  /** A data directory dumped by `dump()`, to start a new database from. */
  template?: ArrayBuffer;
  /** Server settings (`-c name=value` pairs) after PGlite's default start parameters. */
  settings: string[];
  /** Give the file system a real fsync (./durable-fs.ts); with `DURABLE_SETTINGS` in `settings`. */
  durable?: boolean;
  /** PGlite's module to run instead of its own (./parser-baseline.ts). */
  pgliteWasmModule?: WasmModule;
}

type Request = { op: 'exec'; messages: Uint8Array } | { op: 'rollback' | 'dump' | 'close' };
export type ThreadRequest = Request & { id: number };

/** `id` 0 is the start-up answer. */
export interface ThreadReply {
  id: number;
  data?: Uint8Array;
  error?: string;
}

export interface PGliteThread extends WireBackend {
  dump(): Promise<Blob>;
  close(): Promise<void>;
}

/**
 * Built, the worker is ./pglite-thread-worker.js. From source (tsx, vitest) it is a .ts file, which
 * a worker can load only once tsx's loader is registered in it (a dev dependency, not in the image).
 */
function workerSource(): { entry: URL | string; eval?: true } {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`./pglite-thread-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return { entry: url };
  // Not import.meta.resolve: vitest's module runner (its global setup) lacks it. require.resolve
  // names the package's CommonJS build; its ES module build sits beside it.
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsx = pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  return {
    entry: `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); });`,
    eval: true,
  };
}

export async function startPGliteThread(init: ThreadInit): Promise<PGliteThread> {
  const source = workerSource();
  const worker = new Worker(source.entry, {
    workerData: init,
    ...(init.template && { transferList: [init.template] }),
    ...(source.eval && { eval: true }),
  });
  const waiting = new Map<
    number,
    { resolve: (r: ThreadReply) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  let failed: Error | undefined;
  const failAll = (e: Error) => {
    failed ??= e;
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    worker.once('error', onError);
    worker.once('message', (r: ThreadReply) => {
      worker.off('error', onError);
      if (r.error) reject(new Error(r.error));
      else resolve();
    });
  });
  // Like a socket: the thread keeps the process alive only while a call waits for it.
  worker.unref();
  worker.on('message', (r: ThreadReply) => {
    const w = waiting.get(r.id);
    if (!w) return;
    waiting.delete(r.id);
    if (waiting.size === 0) worker.unref();
    if (r.error) w.reject(new Error(r.error));
    else w.resolve(r);
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`embedded database thread exited (${code})`)));

  const call = (req: Request, transfer: ArrayBuffer[] = []) => {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise<ThreadReply>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...req, id }, transfer);
    });
  };
  return {
    groupCommit: init.durable === true,
    async exec(messages) {
      // a copy the worker can own: the caller's buffer may be a view into a larger one
      const own = new Uint8Array(messages);
      return (await call({ op: 'exec', messages: own }, [own.buffer])).data;
    },
    async rollbackOpenTransaction() {
      await call({ op: 'rollback' });
    },
    async dump() {
      return new Blob([(await call({ op: 'dump' })).data!]);
    },
    async close() {
      try {
        if (!failed) await call({ op: 'close' });
      } finally {
        await stop();
      }
    },
  };

  async function stop() {
    // terminate() of a worker that was unref'd holds nothing open while the thread stops (not
    // even after ref()): the event loop drained and Node exited with code 0 in the middle of the
    // caller's await (vitest's global setup did, so a clean clone ran no test). A timer holds the
    // process until the thread has gone.
    const hold = setInterval(() => {}, 60_000);
    try {
      await worker.terminate();
    } finally {
      clearInterval(hold);
    }
  }
}
