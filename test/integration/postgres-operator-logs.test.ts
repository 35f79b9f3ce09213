import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate, SCHEMA_LOCK_KEY } from '../../src/db/migrate.js';
import { indexName } from '../../src/domain/search/vectors.js';
import { createRuntime, SALE_ITEM_CHANNEL } from '../../src/runtime.js';
import { captureLogs, type LogLine } from '../helpers/logs.js';
import { databaseEnv, freshDatabase, ON_POSTGRES } from '../helpers/postgres.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Log lines an operator of several processes on one Postgres needs (the embedded database has one
 * session: no lock is ever contended there, and no LISTEN connection exists).
 */
describe.skipIf(!ON_POSTGRES)('operator log lines on a Postgres server', () => {
  it('a migrator that finds the schema lock held says it waits, once, and when it got the lock', async () => {
    const url = await freshDatabase();
    const holder = postgres(url, { max: 1, onnotice: () => {} });
    const migrator = postgres(url, { max: 1, onnotice: () => {} });
    closers.push(
      () => holder.end(),
      () => migrator.end(),
    );
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, '990_probe_a.sql'), 'select 1');
    await writeFile(path.join(dir, '991_probe_b.sql'), 'select 1');

    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = holder.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`;
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await isLocked;
    const { logger, lines } = captureLogs();
    const migrating = migrate(migrator, dir, { logger });
    const said = (l: LogLine) => l.msg ?? '';
    try {
      await until('the waiting line', () => lines.some((l) => said(l).startsWith('waiting')));
      await sleep(200);
    } finally {
      // a failing test must not leave the migrator blocked behind the lock
      release();
      await holding;
    }
    expect((await migrating).applied).toEqual(['990_probe_a.sql', '991_probe_b.sql']);
    expect(lines.map(said)).toEqual([
      expect.stringMatching(/^waiting for another process's migrations/),
      'got the schema lock: applying the migrations still missing',
    ]);
    expect(lines[1]!.waited_ms).toBeGreaterThanOrEqual(200);
  });

  it('the cross-replica invalidation connection, lost and listening again, is logged', async () => {
    const { logger, lines } = captureLogs();
    const config = loadConfig({ ...(await databaseEnv()), LOG_LEVEL: 'info' });
    const runtime = await createRuntime(config, { logger });
    closers.push(() => runtime.close().catch(() => {}));
    const admin = postgres(config.DATABASE_URL!, { max: 1, onnotice: () => {} });
    closers.push(() => admin.end());
    const recovered = () => lines.filter((l) => (l.msg ?? '').includes('listening again'));
    const lost = () => lines.filter((l) => (l.msg ?? '').includes('lost its LISTEN connection'));
    expect(recovered()).toEqual([]);
    expect(lost()).toEqual([]);
    // what a Postgres restart or failover does to the LISTEN connection
    const killed = await admin`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query ilike ${`listen%${SALE_ITEM_CHANNEL}%`}`;
    expect(killed.length).toBe(1);
    await until('the recovery line', () => recovered().length > 0);
    expect(recovered()[0]).toMatchObject({ level: 30, channel: SALE_ITEM_CHANNEL });
    // the loss was said first, once, at warn
    expect(lost()).toEqual([expect.objectContaining({ level: 40, channel: SALE_ITEM_CHANNEL })]);
    expect(lines.indexOf(lost()[0]!)).toBeLessThan(lines.indexOf(recovered()[0]!));
    expect(recovered()[0]!.msg).toMatch(/by their TTL/);
    // a runtime that stops listening says nothing of a loss
    await runtime.close();
    expect(lost()).toHaveLength(1);
  });

  it("a vector index build's lines say what the index is: its dimensions and embedder", async () => {
    const env = await databaseEnv();
    const config = loadConfig({ ...env, LOG_LEVEL: 'info' });
    const admin = postgres(config.DATABASE_URL!, { max: 1, onnotice: () => {} });
    closers.push(() => admin.end());
    const first = await createRuntime(config, { logger: captureLogs().logger });
    const { dimensions, model } = first.deps.embedder;
    await first.indexBuilds;
    await first.close();
    await admin.unsafe(`drop index if exists ${indexName(dimensions)}`);
    const { logger, lines } = captureLogs();
    const runtime = await createRuntime(config, { logger });
    closers.push(() => runtime.close().catch(() => {}));
    await runtime.indexBuilds;
    const meaning = {
      index: indexName(dimensions),
      purpose: 'semantic search over listing vectors',
      dimensions,
      embedder: model,
    };
    expect(lines.filter((l) => l.msg === 'index build started')).toEqual([
      expect.objectContaining(meaning),
    ]);
    expect(lines.filter((l) => l.msg === 'index build finished')).toEqual([
      expect.objectContaining(meaning),
    ]);
  });
});
