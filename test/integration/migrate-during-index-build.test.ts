import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { buildIndex, indexState } from '../../src/domain/search/index-builds.js';
import { freshDatabase, ON_POSTGRES } from '../helpers/postgres.js';

/**
 * A replica that starts with a new migration while another replica builds a search index with
 * `create index concurrently` (issue 25). A migration that alters `items` queues an ACCESS
 * EXCLUSIVE lock behind the build's lock for the whole build, and every read and write of `items`
 * by the serving replicas queues behind that request: the fleet stops serving for minutes. The
 * migration must wait for the build without asking for `items` (the build lock), apply once the
 * build ends, and neither may deadlock. A Postgres server only: the embedded database has one session.
 */
describe.skipIf(!ON_POSTGRES)('a migration while another replica builds an index', () => {
  const clients: postgres.Sql[] = [];
  let dir: string;
  const client = (max = 2) => {
    const c = postgres(url, { onnotice: () => {}, max });
    clients.push(c);
    return c;
  };
  let url: string;
  beforeAll(async () => {
    url = await freshDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    await writeFile(
      path.join(dir, '999_items_probe.sql'),
      'alter table items add column probe int;',
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
    await rm(dir, { recursive: true, force: true });
  });

  it('waits for the build without blocking the fleet, then applies; no deadlock', async () => {
    const [builder, migrator, serving, observer] = [client(), client(), client(), client()];
    // a long transaction of a serving replica: the build waits for its snapshot (as it waits for
    // any transaction older than it), which holds the build open as a large table would
    const reader = await client(1).reserve();
    await reader`begin isolation level repeatable read`;
    await reader`select count(*) from agents`;

    const build = buildIndex(builder, 'probe_build_idx', 'on items (created_at)', {
      concurrently: true,
    });
    await until('the build to wait for the old snapshot', async () => {
      const rows = await observer`
        select 1 from pg_stat_progress_create_index p join pg_class c on c.oid = p.relid
        where c.relname = 'items'`;
      return rows.length > 0;
    });

    // a second replica starts and runs migrations
    const said: string[] = [];
    const logger = { info: (_: object, msg: string) => void said.push(msg) };
    const migration = migrate(migrator, dir, { logger, retryMs: 100 });
    const settled = { migration: false };
    void migration.then(() => (settled.migration = true)).catch(() => {});
    await new Promise((r) => setTimeout(r, 1000));
    expect(settled.migration).toBe(false);

    // the serving replicas keep reading and writing items meanwhile
    const served = await serving.begin(async (tx) => {
      await tx`set local lock_timeout = '2s'`;
      const [{ n } = { n: -1 }] = await tx<{ n: number }[]>`select count(*)::int as n from items`;
      await tx`update items set updated_at = updated_at where false`;
      return n;
    });
    expect(served).toBeGreaterThanOrEqual(0);

    // the long transaction ends: the build finishes, then the migration applies
    await reader`commit`;
    reader.release();
    await expect(within(20_000, 'the build', build)).resolves.toBe('built');
    await expect(within(20_000, 'the migration', migration)).resolves.toMatchObject({
      applied: ['999_items_probe.sql'],
    });
    expect(said).toEqual(["migrations wait for another process's search index build"]);
    expect(await indexState(observer, 'probe_build_idx')).toBe('valid');
    const [column] = await observer`
      select 1 from information_schema.columns where table_name = 'items' and column_name = 'probe'`;
    expect(column).toBeDefined();
  });
});

function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
