import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

/**
 * Review s29: an operator's batch on the in-process embedded database (`reindex`, `moderate`
 * over many rows, a backfill) awaits one statement after another and never yields on purpose. The
 * checkpoint timer still runs between its statements (measured: 14 checkpoints over 17.8 MB of
 * WAL, at most 1.2 MB since the last one with a 1 MB limit), so pg_wal stays bounded there too.
 */
let db: Database | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await db?.close();
  db = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// The embedded database only (PGlite opened here, never the test tier's database): on the
// Postgres tier this file would run the very same code again, so it runs in `npm test` alone
// (docs/testing.md, "CI's time").
describe.skipIf(ON_POSTGRES)(
  'embedded database checkpoints in a batch that never yields to timers',
  () => {
    it('checkpoints during the batch, so the WAL since the last one stays near the limit', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'ckpt-batch-'));
      dirs.push(dir);
      const lines: { msg: string }[] = [];
      const logger = pino(
        { level: 'info' },
        { write: (s: string) => void lines.push(JSON.parse(s)) },
      );
      db = await openDatabase(
        loadConfig({
          DATA_DIR: dir,
          EMBEDDED_DB_THREAD: 'false',
          EMBEDDED_CHECKPOINT_WAL_MB: '1',
          EMBEDDED_CHECKPOINT_SECONDS: '0',
          EMBEDDED_CHECKPOINT_CHECK_SECONDS: '0.05',
        }),
        { logger },
      );
      const { sql } = db;
      await sql`create table batch (id serial primary key, v text)`;
      const since = async () => {
        const [r] = await sql<{ since: string }[]>`
        select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::text as since
        from pg_control_checkpoint()`;
        return Number(r!.since);
      };
      const insertPosition = async () => {
        const [r] = await sql<{ at: string }[]>`
        select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as at`;
        return Number(r!.at);
      };
      const from = await insertPosition();
      // one statement after another, as reindexAll and moderate do: 8 rows of ~3 kB that do not
      // compress each, for well over the check period
      let most = 0;
      const started = Date.now();
      for (let i = 0; i < 600 || Date.now() - started < 1_000; i++) {
        await sql`insert into batch (v) select string_agg(md5(random()::text), '')
        from generate_series(1, 800) x group by x % 8`;
        if (i % 20 === 0) most = Math.max(most, await since());
      }
      const written = (await insertPosition()) - from;
      const checkpoints = lines.filter((l) => l.msg === 'embedded database checkpoint').length;
      expect(written).toBeGreaterThan(8 * 2 ** 20);
      expect(checkpoints).toBeGreaterThanOrEqual(2);
      // the limit (1 MB) plus what is written between two checks, not the batch's whole WAL
      expect(most).toBeLessThan(written / 2);
    });
  },
);
