import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { makeFsyncDurable, NOT_DURABLE } from './durable-fs.js';
import type { ThreadInit, ThreadReply, ThreadRequest } from './pglite-thread.js';

/**
 * The worker thread that hosts the embedded PGlite (./pglite-thread.ts starts it): it opens the
 * database, then runs each batch of wire-protocol messages it is sent and answers with PGlite's
 * replies, so the database's WASM runs on its own core while the main thread serves requests.
 */
const init = workerData as ThreadInit;
const port = parentPort!;

const db = await PGlite.create({
  ...(init.dataDir !== undefined && { dataDir: init.dataDir }),
  extensions: { vector, pg_trgm },
  ...(init.template && { loadDataDir: new Blob([init.template]) }),
  ...(init.pgliteWasmModule && { pgliteWasmModule: init.pgliteWasmModule }),
  startParams: [...PGlite.defaultStartParams, ...init.settings],
}).catch((e: unknown) => {
  port.postMessage({ id: 0, error: String((e as Error)?.message ?? e) } satisfies ThreadReply);
  process.exit(1);
});
const durable = init.durable ? makeFsyncDurable(db.Module) : NOT_DURABLE;

async function handle(req: ThreadRequest): Promise<ThreadReply> {
  switch (req.op) {
    case 'exec': {
      const replies: Uint8Array[] = [];
      let size = 0;
      await db.runExclusive(async () => {
        durable.check();
        await db.execProtocolRawStream(req.messages, {
          // a view into PGlite's memory, reused by the next call: copy it
          onRawData: (bytes) => {
            replies.push(bytes.slice());
            size += bytes.length;
          },
        });
        // a sync that failed in this batch: none of its replies goes out (./durable-fs.ts)
        durable.check();
      });
      if (replies.length === 1) return { id: req.id, data: replies[0]! };
      const data = new Uint8Array(size);
      let at = 0;
      for (const r of replies) {
        data.set(r, at);
        at += r.length;
      }
      return { id: req.id, data };
    }
    case 'rollback':
      // a connection that went away inside a transaction must not leave it open for the next one
      if (!db.closed && db.ready && db.isInTransaction()) await db.exec('rollback');
      return { id: req.id };
    case 'dump': {
      const blob = await db.dumpDataDir('none');
      return { id: req.id, data: new Uint8Array(await blob.arrayBuffer()) };
    }
    case 'close':
      await db.close();
      return { id: req.id };
  }
}

port.on('message', (req: ThreadRequest) => {
  handle(req).then(
    (reply) => port.postMessage(reply, reply.data ? [reply.data.buffer as ArrayBuffer] : []),
    (e: unknown) =>
      port.postMessage({ id: req.id, error: String((e as Error)?.message ?? e) } as ThreadReply),
  );
});
port.postMessage({ id: 0 } satisfies ThreadReply);
