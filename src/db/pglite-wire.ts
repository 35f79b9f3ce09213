import { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';
import { NOT_DURABLE, type DurableGuard } from './durable-fs.js';

/**
 * postgres.js speaks to the embedded PGlite in this process, through a stream handed to its
 * `socket` option: no port, no socket file, nothing another process or user could connect to.
 *
 * postgres.js writes whole protocol messages (a query's Parse, Bind, Describe, Execute and Sync
 * arrive together); every complete message of a write goes to PGlite in one call, whose replies
 * come back as one chunk. PGlite has a single session: open one connection (`max: 1`). PGlite
 * runs on this thread (`inProcess`) or on a worker thread of its own (./pglite-thread.ts).
 */
export function pgliteSocket(backend: WireBackend): () => Duplex {
  return () => new PGliteConnection(backend);
}

/** Where the messages go: a PGlite on this thread or on a worker thread. */
export interface WireBackend {
  /** Runs a batch of complete protocol messages; the replies, in one buffer the caller owns. */
  exec(messages: Uint8Array): Promise<Uint8Array | undefined>;
  /** Rolls back a transaction left open by a connection that went away. */
  rollbackOpenTransaction(): Promise<void>;
  /**
   * Commits wait for the disk (./durable-fs.ts): a batch starts a turn of the event loop later, so
   * that the statements of every request already readable share its WAL sync.
   */
  groupCommit?: boolean;
}

export function inProcess(db: PGlite, durable: DurableGuard = NOT_DURABLE): WireBackend {
  return {
    groupCommit: durable !== NOT_DURABLE,
    async exec(messages) {
      const replies: Buffer[] = [];
      await db.runExclusive(async () => {
        durable.check();
        await db.execProtocolRawStream(messages, {
          // a view into PGlite's memory, reused by the next call: copy it
          onRawData: (bytes) => void replies.push(Buffer.from(bytes)),
        });
        // a sync that failed in this batch: none of its replies goes out (./durable-fs.ts)
        durable.check();
      });
      if (replies.length === 0) return undefined;
      return replies.length === 1 ? replies[0] : Buffer.concat(replies);
    },
    async rollbackOpenTransaction() {
      if (!db.closed && db.ready && db.isInTransaction()) await db.exec('rollback');
    },
  };
}

const TERMINATE = 0x58; // 'X'

class PGliteConnection extends Duplex {
  /** Bytes of a message not complete yet. */
  #partial: Buffer = Buffer.alloc(0);
  #started = false;
  /** Written and not yet handed to PGlite, in order. */
  #queued: Buffer[] = [];
  /** A batch is running or about to start. */
  #busy = false;
  /** `_final`'s callback, once everything written has run. */
  #finish: ((e?: Error | null) => void) | undefined;

  constructor(private readonly backend: WireBackend) {
    // never "full": postgres.js skips reserving a transaction's connection when a write says so
    // (./index.ts, max_pipeline); what is written is bounded by the queries in flight
    super({ writableHighWaterMark: Number.MAX_SAFE_INTEGER });
  }

  /** postgres.js sends its Terminate only to a socket that says it is open. */
  get readyState(): 'open' | 'closed' {
    return this.destroyed || this.writableEnded ? 'closed' : 'open';
  }

  override _read(): void {}

  /**
   * What is written while a batch runs goes to PGlite in one call: one thread hop and one pass
   * through PGlite for all of it (postgres.js pipelines the statements of concurrent requests),
   * whose replies come back in order, as from a server that read them from one packet. With
   * durable commits it is a group commit (./durable-fs.ts), one WAL sync for the batch, and a
   * batch starts on `setImmediate`, after the event loop's poll phase: every request already
   * readable has been parsed and has reached its statement by then, on this thread or while the
   * worker thread ran the previous batch.
   */
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void) {
    this.#enqueue(chunk);
    done();
  }

  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    done: (e?: Error | null) => void,
  ) {
    for (const c of chunks) this.#enqueue(c.chunk);
    done();
  }

  override _final(done: (e?: Error | null) => void) {
    if (this.#busy) {
      this.#finish = done;
      return;
    }
    this.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (e?: Error | null) => void) {
    this.#queued = [];
    // A connection that goes away inside a transaction must not leave it open for the next one.
    this.backend.rollbackOpenTransaction().then(
      () => done(error),
      () => done(error),
    );
  }

  #enqueue(chunk: Buffer) {
    this.#queued.push(chunk);
    if (this.#busy) return;
    this.#busy = true;
    if (this.backend.groupCommit) setImmediate(() => this.#run());
    else this.#run();
  }

  #run() {
    if (this.destroyed) return;
    const chunks = this.#queued;
    this.#queued = [];
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.#receive(data).then(
      () => {
        if (this.destroyed) return;
        if (this.#queued.length) {
          if (this.backend.groupCommit) setImmediate(() => this.#run());
          else this.#run();
          return;
        }
        this.#busy = false;
        const finish = this.#finish;
        if (finish) {
          this.#finish = undefined;
          this.push(null);
          finish();
        }
      },
      (e: unknown) => this.destroy(e as Error),
    );
  }

  async #receive(chunk: Buffer) {
    let buf = this.#partial.length ? Buffer.concat([this.#partial, chunk]) : chunk;
    if (!this.#started) {
      // StartupMessage: untyped, an int32 length (counting itself) first.
      if (buf.length < 4 || buf.length < buf.readInt32BE(0)) {
        this.#partial = buf;
        return;
      }
      const length = buf.readInt32BE(0);
      await this.#exec(buf.subarray(0, length));
      this.#started = true;
      buf = buf.subarray(length);
    }
    // Typed messages: one type byte, then an int32 length counting itself but not the type.
    let end = 0;
    let terminate = false;
    while (buf.length - end >= 5) {
      if (buf[end] === TERMINATE) {
        terminate = true;
        break;
      }
      const size = 1 + buf.readInt32BE(end + 1);
      if (buf.length - end < size) break;
      end += size;
    }
    if (end > 0) await this.#exec(buf.subarray(0, end));
    this.#partial = terminate ? Buffer.alloc(0) : Buffer.from(buf.subarray(end));
    if (terminate) this.push(null);
  }

  async #exec(messages: Buffer) {
    const replies = await this.backend.exec(messages);
    if (replies?.length) {
      this.push(
        Buffer.isBuffer(replies)
          ? replies
          : Buffer.from(replies.buffer, replies.byteOffset, replies.length),
      );
    }
  }
}
