import type { Logger } from 'pino';
import type postgres from 'postgres';

/**
 * Checkpoints for the embedded database. PGlite runs Postgres single-user: there is no
 * checkpointer process, and a standalone backend never requests a checkpoint when `max_wal_size`
 * is passed. Left alone, the WAL since the last checkpoint grew for the life of the process
 * (~5 kB per paid completion): disk that is never given back, and all of it replayed at the
 * start after a crash (~7 ms per MB). This runs `CHECKPOINT` on the service's own connection
 * (the one session, so never beside a statement) when enough WAL was written since the last one,
 * or when some was and enough time passed; the checkpoint recycles or removes old segments.
 */
export interface CheckpointPolicy {
  /** Checkpoint once this many bytes of WAL were written since the last one; 0: never by size. */
  walBytes: number;
  /** Checkpoint once this long passed since the last one, if anything was written; 0: never by time. */
  intervalMs: number;
  /** How often the (cheap) check runs. */
  checkMs: number;
}

export interface Checkpointer {
  /** Stops the timer and waits for a check or checkpoint under way. */
  stop(): Promise<void>;
}

interface Position {
  /** WAL written since the last checkpoint's redo point, in bytes. */
  since: number;
  /** The current WAL insert position, in bytes. */
  insert: bigint;
}

/** Where the WAL is and how much of it the last checkpoint has not covered: one small query. */
async function position(sql: postgres.Sql): Promise<Position> {
  const [row] = await sql<{ since: string; insert: string }[]>`
    select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::text as since,
           pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as insert
    from pg_control_checkpoint()`;
  return { since: Number(row!.since), insert: BigInt(row!.insert) };
}

/** ENOSPC as Postgres reports it: SQLSTATE 53100 (disk_full), or its message. */
function diskFull(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  return err?.code === '53100' || /no space left on device/i.test(String(err?.message ?? ''));
}

export async function startCheckpointer(
  sql: postgres.Sql,
  policy: CheckpointPolicy,
  logger?: Logger,
): Promise<Checkpointer> {
  if (policy.walBytes <= 0 && policy.intervalMs <= 0) return { stop: async () => {} };
  let lastAt = Date.now();
  /** The insert position right after the last checkpoint (or at start): moved on means written. */
  let lastInsert = (await position(sql)).insert;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function tick(): Promise<void> {
    let at: Position;
    try {
      at = await position(sql);
    } catch (e) {
      logger?.warn({ err: e }, 'embedded database: could not read the WAL position');
      return;
    }
    const bySize = policy.walBytes > 0 && at.since >= policy.walBytes;
    const byTime =
      policy.intervalMs > 0 && Date.now() - lastAt >= policy.intervalMs && at.insert > lastInsert;
    if (!bySize && !byTime) return;
    const started = performance.now();
    logger?.debug({ walBytes: at.since }, 'embedded database checkpoint starting');
    try {
      await sql`checkpoint`;
    } catch (e) {
      // the WAL since the last checkpoint stays (replayed at the next start) and keeps growing; the
      // next check tries again. An error, not a warning: nothing else recycles the WAL. (On a full
      // disk Postgres may report the failure after the checkpoint itself, making the next segment.)
      if (diskFull(e))
        logger?.error(
          { err: e, walBytes: at.since, diskFull: true },
          'embedded database checkpoint failed: the disk holding DATA_DIR is full; WAL segments may not be recycled and writes fail until space is freed',
        );
      else logger?.error({ err: e, walBytes: at.since }, 'embedded database checkpoint failed');
      return;
    }
    const ms = Math.round(performance.now() - started);
    lastAt = Date.now();
    lastInsert = (await position(sql).catch(() => at)).insert;
    logger?.info(
      { walBytes: at.since, ms, reason: bySize ? 'wal size' : 'time' },
      'embedded database checkpoint',
    );
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        schedule();
      });
    }, policy.checkMs);
    // a timer of its own keeps no process alive
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
