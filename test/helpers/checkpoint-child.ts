/**
 * The embedded database on disk in a process of its own, for the kill -9 test of its checkpoints
 * (test/integration/embedded-checkpoint.test.ts): opens DATA_DIR with the checkpoint settings in
 * the environment, then inserts rows one at a time for ever. Prints one JSON line per event on
 * stdout: `{ acked: n }` once row n's commit returned, and the database's own log lines (the
 * checkpoint's among them).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';

const logger = pino(
  { level: process.env.CKPT_CHILD_LOG_LEVEL ?? 'info' },
  pino.destination({ fd: 1, sync: true }),
);
const db = await openDatabase(loadConfig(process.env), { logger });
await db.sql`create table if not exists acked (n int primary key, pad text)`;
// CKPT_CHILD_BULK_MB: that much written first in one statement, so that the first checkpoint has
// many dirty pages to write (long enough to be killed in the middle of it)
const bulk = Number(process.env.CKPT_CHILD_BULK_MB ?? 0);
if (bulk > 0) {
  await db.sql`create table bulk as select g as id, string_agg(md5(random()::text), '') as pad
    from generate_series(1, ${bulk * 320}) g, generate_series(1, 100) x group by g`;
  process.stdout.write(`${JSON.stringify({ bulk: true })}\n`);
}
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for (let n = 1; ; n++) {
  await db.sql`insert into acked values (${n}, ${randomBytes(1000).toString('hex')})`;
  process.stdout.write(`${JSON.stringify({ acked: n })}\n`);
  // as between a service's requests: the event loop goes round (the in-process database answers
  // without it, so a loop of awaits alone would starve every timer, the checkpoint check's too)
  await new Promise(setImmediate);
}
