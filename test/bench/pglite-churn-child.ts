import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * One process that opens, uses and closes the embedded database `argv[3]` times in a row, as a
 * vitest worker does (every test file builds its own in-memory database in the same process) and
 * as the relevance benches do: the opener of a built checkout (`argv[2]`), in memory from the
 * shipped template, pgvector and pg_trgm loaded. Each cycle runs a few hundred statements (a
 * vector and a trigram query among them), so PGlite's calls into JavaScript are hot enough for V8
 * to tier their import wrappers up, and a `fetch` over loopback (undici's llhttp, the other
 * WebAssembly of a test process). Run by ./pglite-churn.ts; prints one JSON line when done.
 */
const [root, cyclesArg] = process.argv.slice(2);
if (!root) throw new Error('usage: pglite-churn-child <built checkout> [cycles]');
const cycles = Number(cyclesArg ?? 20);

const load = async <T>(file: string): Promise<T> =>
  (await import(pathToFileURL(path.join(root, file)).href)) as T;

type Sql = ((strings: TemplateStringsArray, ...values: unknown[]) => Promise<unknown[]>) & {
  unsafe(text: string): Promise<unknown[]>;
};
interface Db {
  sql: Sql;
  close(): Promise<void>;
}
const { loadConfig } = await load<{ loadConfig(env: NodeJS.ProcessEnv): object }>(
  'dist/src/config.js',
);
const { openDatabase } = await load<{ openDatabase(config: object, opts: object): Promise<Db> }>(
  'dist/src/db/index.js',
);
const config = loadConfig({
  ...process.env,
  EMBEDDED_DB_IN_MEMORY: 'true',
  LOG_LEVEL: 'silent',
  EMBEDDED_DB_THREAD: process.env.EMBEDDED_DB_THREAD ?? 'false',
});
const { createServer } = await import('node:http');
const server = createServer((_req, res) => res.end('ok'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };

const t0 = performance.now();
for (let c = 0; c < cycles; c++) {
  const db = await openDatabase(config, { templateDir: path.join(root, 'dist/db-template') });
  const { sql } = db;
  await sql`create table if not exists churn (id int primary key, body text, v vector(3))`;
  await sql`create extension if not exists pg_trgm`;
  for (let i = 0; i < 50; i++)
    await sql`insert into churn values (${i}, ${`row ${i} of cycle ${c}`}, ${`[${i},${c},1]`}) on conflict (id) do update set body = excluded.body`;
  await sql`select id from churn order by v <-> '[1,1,1]' limit 5`;
  await sql`select id from churn where body % 'row 7 of cycle' limit 5`;
  await sql.unsafe('select count(*) from pg_class; select now()');
  await (await fetch(`http://127.0.0.1:${port}/`)).text();
  await db.close();
}
server.close();
console.log(JSON.stringify({ cycles, ms: Math.round(performance.now() - t0) }));
