import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { databaseEnv } from '../helpers/postgres.js';

/**
 * A connection under many requests at once (the scale bench's 200 connections): postgres.js
 * pipelines their queries onto the embedded database's one connection, and on a server pool onto
 * its busy connections once every connection is busy or reserved by a transaction. A
 * transaction's BEGIN that filled the pipeline (postgres.js's `max_pipeline`, 100 by default) skipped the hook that reserves the connection for the transaction
 * (porsager/postgres#1189): the transaction's first query then threw a TypeError in postgres.js
 * (an HTTP 500 under the scale bench's 1 replica on Postgres, or a crashed embedded process) while
 * the connection, left inside the open transaction, went on serving unrelated queries. Both tiers:
 * on Postgres with a pool of one connection, which makes the boundary exact.
 */
describe('a connection under a deep pipeline', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(
      loadConfig({
        EMBEDDED_DB_IN_MEMORY: 'true',
        DATABASE_POOL_MAX: '1',
        ...(await databaseEnv()),
      }),
    );
    await db.sql`create table pipeline_probe (n int)`;
  });
  afterAll(() => db?.close());

  it('a transaction whose BEGIN fills the pipeline is still one transaction', async () => {
    const { sql } = db;
    for (const before of [99, 100, 150, 400]) {
      // sent now (postgres.js sends a query when it is awaited, unless told to execute)
      const reads = Array.from({ length: before }, () => sql`select 1 as one`.execute());
      const tx = sql.begin(async (t) => {
        await t`insert into pipeline_probe values (${before})`;
        // the insert's transaction id, still assigned: the same transaction
        const [row] = await t<{ inTx: boolean }[]>`
          select pg_current_xact_id_if_assigned() is not null as in_tx`;
        return row;
      });
      const after = Array.from({ length: 50 }, () => sql`select 2 as two`.execute());
      const [txRow] = await Promise.all([tx, Promise.all(reads), Promise.all(after)]);
      expect(txRow).toEqual({ inTx: true });
    }
    const rows = await sql<{ n: number }[]>`select n from pipeline_probe order by n`;
    expect(rows.map((r) => r.n)).toEqual([99, 100, 150, 400]);
  });
});
