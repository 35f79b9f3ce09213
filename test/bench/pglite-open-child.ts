import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * One embedded-database open in a fresh process (./pglite-open.ts runs it with `npm start`'s node
 * flags): the steps a serving start takes on an existing data directory, from a built checkout's
 * `dist/src` (argv[2], so another build runs the same steps) on the data directory argv[3]. The
 * WebAssembly compile runs on its own thread first, as in a start (not measured). Marks are set
 * from outside PGlite: an extension of ours (its setup, an Emscripten preRun, the runtime's
 * initialisation, the first file-system call after the factory, `callMain`: Postgres's own
 * single-user start), `WebAssembly.instantiate`, `_initArrayTypes`. Each phase reports the main
 * thread's CPU (`process.threadCpuUsage`) and the main thread's page faults
 * (`/proc/self/task/<pid>/stat`'s minflt: each a first touch of a page); each batch of protocol
 * messages PGlite runs is recorded with its CPU. Prints `{ phases, statements }` as JSON.
 */
const [root, dataDir] = process.argv.slice(2);
if (!root || !dataDir) throw new Error('usage: pglite-open-child <built checkout> <data dir>');
process.env.DATA_DIR = dataDir;

interface Mark {
  name: string;
  cpu: number;
  faults: number;
}
const marks: Mark[] = [];
const cpu = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};
/** Minor faults of the main thread: field 10 of its stat line (field 8 after the command). */
const faults = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7]);
const mark = (name: string) => marks.push({ name, cpu: cpu(), faults: faults() });

const load = async <T>(file: string): Promise<T> =>
  (await import(pathToFileURL(path.join(root, file)).href)) as T;

type Sql = ((strings: TemplateStringsArray, ...values: unknown[]) => Promise<unknown[]>) & {
  end(): Promise<void>;
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
const { compileEarly } = await load<{ compileEarly(): Promise<void> }>(
  'dist/src/db/parser-baseline.js',
);
const { migrate } = await load<{ migrate(sql: Sql): Promise<unknown> }>('dist/src/db/migrate.js');
const { ensureVectorIndex } = await load<{
  ensureVectorIndex(sql: Sql, dims: number, opts: object): Promise<void>;
}>('dist/src/domain/search/vectors.js');
const { createEmbedder } = await load<{ createEmbedder(config: object): { dimensions: number } }>(
  'dist/src/embeddings/index.js',
);
const config = loadConfig(process.env);
await compileEarly();

type Fn = (...args: unknown[]) => unknown;
interface EmscriptenModule {
  onRuntimeInitialized?: () => void;
  callMain: Fn;
  FS: Record<string, Fn>;
}
interface PGliteClass {
  create: Fn;
  prototype: Record<string, Fn>;
}
mark('start');
const { PGlite } = await load<{ PGlite: PGliteClass }>(
  'node_modules/@electric-sql/pglite/dist/index.js',
);
await load('node_modules/@electric-sql/pglite-pgvector/dist/index.js');
mark('PGlite modules');

// the global WebAssembly object (the ES2023 lib has no WebAssembly types)
const wasm = (
  globalThis as unknown as {
    WebAssembly: { instantiate: Fn; Module: abstract new (...a: never[]) => unknown };
  }
).WebAssembly;
const instantiate = wasm.instantiate;
wasm.instantiate = function (this: unknown, ...args: unknown[]) {
  const what = args[0] instanceof wasm.Module ? 'pglite.wasm' : 'an extension';
  mark(`to instantiating ${what}`);
  const p = instantiate.apply(this, args) as Promise<unknown>;
  void p.then(() => mark(`instantiating ${what}`));
  return p;
};
const create = PGlite.create;
PGlite.create = async function (this: unknown, ...args: unknown[]) {
  mark('opener, to PGlite.create');
  const opts = args[0] as { extensions: object };
  const probe = {
    name: 'probe',
    setup: (_pg: unknown, emscriptenOpts: { preRun: Fn[] }) => {
      mark('extension setups (the bundles read)');
      const preRun = (mod: EmscriptenModule) => {
        mark('to the preRun hooks (dynamic linking)');
        const initialized = mod.onRuntimeInitialized;
        mod.onRuntimeInitialized = () => {
          mark('pglite.data into MEMFS, runtime init');
          initialized?.();
          let first = true;
          const chmod = mod.FS.chmod!;
          mod.FS.chmod = function (this: unknown, ...a: unknown[]) {
            if (first) {
              first = false;
              mark('factory done');
            }
            return chmod.apply(this, a);
          };
          const callMain = mod.callMain;
          mod.callMain = function (this: unknown, ...a: unknown[]) {
            mark('extensions unpacked and loaded');
            const r = callMain.apply(this, a);
            mark("Postgres's start (callMain)");
            return r;
          };
        };
      };
      return Promise.resolve({
        emscriptenOpts: { ...emscriptenOpts, preRun: [...emscriptenOpts.preRun, preRun] },
      });
    },
  };
  const db = await create.call(this, { ...opts, extensions: { ...opts.extensions, probe } });
  mark('the first query (PGlite: array types)');
  return db;
};
const initArrayTypes = PGlite.prototype._initArrayTypes!;
PGlite.prototype._initArrayTypes = function (this: unknown, ...a: unknown[]) {
  mark('to _initArrayTypes');
  return initArrayTypes.apply(this, a);
};
const statements: { cpuMs: number; text: string }[] = [];
const exec = PGlite.prototype.execProtocolRawStream!;
PGlite.prototype.execProtocolRawStream = async function (this: unknown, ...a: unknown[]) {
  const before = cpu();
  const r = await exec.apply(this, a);
  const text = Buffer.from(a[0] as Uint8Array)
    .toString('latin1')
    .replace(/[^ -~]+/g, ' ')
    .replace(/\s+/g, ' ')
    .slice(0, 100);
  statements.push({ cpuMs: +(cpu() - before).toFixed(1), text });
  return r;
};

const db = await openDatabase(config, {});
mark('postgres.js: type fetch, WAL position');
await migrate(db.sql);
mark('migrations check');
await db.sql`select value from deployment_settings where name = 'contract_revision'`;
mark('contract revision');
await ensureVectorIndex(db.sql, createEmbedder(config).dimensions, { concurrently: false });
mark('vector index check');
await db.close();

const phases = marks.slice(1).map((m, i) => ({
  name: m.name,
  cpuMs: +(m.cpu - marks[i]!.cpu).toFixed(1),
  faults: m.faults - marks[i]!.faults,
}));
process.stdout.write(`${JSON.stringify({ phases, statements })}\n`);
