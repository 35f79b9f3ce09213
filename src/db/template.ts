import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { fsync, syncDirectories } from './durable-dirs.js';
import { MIGRATIONS_DIR } from './migrations-dir.js';

/** For the first start's unpacking thread (./first-start.ts), which loads this module only. */
export { syncDirectories };

/**
 * An initialised data directory with every migration applied, shipped with the build, so that a
 * first start copies files instead of running initdb and the migrations: initdb takes seconds and
 * peaks near 900 MB resident (PGlite runs it in a second Postgres instance beside a third WASM
 * module), and the migrations took another ~5 s of a first start. `npm run build` writes it
 * (./build-template.ts); it is used only by the PGlite version and the exact migrations that made it
 * (the manifest's digest), otherwise a first start runs initdb and the migrations as before.
 *
 * It lives in `dist/db-template/` at the package root (two levels up from `src/db/` when run from
 * source, three from the compiled `dist/src/db/`), so `npm run dev` finds the one the build made.
 */
export const TEMPLATE_DIR = path.join(
  [
    fileURLToPath(new URL('../../', import.meta.url)),
    fileURLToPath(new URL('../../../', import.meta.url)),
  ].find((root) => existsSync(path.join(root, 'package.json'))) ??
    fileURLToPath(new URL('../../', import.meta.url)),
  'dist',
  'db-template',
);

const TARBALL = 'pgdata.tar.gz';
const MANIFEST = 'manifest.json';

/**
 * What the tarball was made by: a template is only used by the exact PGlite version that made it,
 * and holds exactly the migrations whose digest it names.
 */
interface Manifest {
  pglite: string;
  migrations: string;
  sha256: string;
  bytes: number;
}

/** The installed PGlite's version (its package.json is not in its exports map: found beside its entry). */
export async function pgliteVersion(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  let dir = path.dirname(entry);
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return (JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

export type TemplateLookup =
  | { ok: true; tarball: string }
  | {
      ok: false;
      reason: 'missing' | 'other_version' | 'other_migrations' | 'damaged';
      detail?: string;
    };

/** The digest of `migrations/` (names and contents, in name order): what a template holds. */
export async function migrationsDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort())
    hash
      .update(name)
      .update('\0')
      .update(await readFile(path.join(MIGRATIONS_DIR, name)));
  return hash.digest('hex');
}

/** The template in `dir` if it was made by the installed PGlite from these migrations and is whole. */
export async function findTemplate(dir: string = TEMPLATE_DIR): Promise<TemplateLookup> {
  const manifest = await readFile(path.join(dir, MANIFEST), 'utf8')
    .then((s) => JSON.parse(s) as Manifest)
    .catch(() => undefined);
  if (!manifest) return { ok: false, reason: 'missing' };
  const installed = await pgliteVersion();
  if (manifest.pglite !== installed) {
    return {
      ok: false,
      reason: 'other_version',
      detail: `made by PGlite ${manifest.pglite}, installed ${installed}`,
    };
  }
  if (manifest.migrations !== (await migrationsDigest())) {
    return { ok: false, reason: 'other_migrations', detail: 'made before the migrations changed' };
  }
  const tarball = path.join(dir, TARBALL);
  const bytes = await readFile(tarball).catch(() => undefined);
  if (!bytes || bytes.length !== manifest.bytes || sha256(bytes) !== manifest.sha256) {
    return { ok: false, reason: 'damaged', detail: tarball };
  }
  return { ok: true, tarball };
}

/** The template as one uncompressed tarball, for PGlite's `loadDataDir` (in-memory databases). */
export async function templateBlob(tarball: string): Promise<Blob> {
  return new Blob([gunzipSync(await readFile(tarball))]);
}

/** Files written (each synced) at once while unpacking: enough to keep the disk busy, few enough buffered. */
const WRITE_LANES = 16;

/**
 * Unpacks the template into `target`, which must not exist yet: into a sibling directory first,
 * then renamed, so a crash part way leaves no half-made database behind (only a scratch directory
 * the next start removes). Each file is written and synced while the next ones are unpacked (at
 * most WRITE_LANES at once, the unpacking waits for a lane); then every directory made is synced,
 * a directory after those below it, so that each file's and each directory's entry is durable
 * before the rename makes the directory the database (as Postgres's durable_rename and
 * fsync_pgdata order them), and the rename itself once the parent is synced. The disk's waits
 * for the files overlap the unpacking's work.
 */
export async function unpackTemplate(tarball: string, target: string): Promise<void> {
  const scratch = `${target}.unpacking`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { mode: 0o700 });
  // every directory below the scratch one that an entry lives in or is (made on the way)
  const dirs = new Set<string>();
  const inside = (dir: string) => {
    for (; dir !== scratch && !dirs.has(dir); dir = path.dirname(dir)) dirs.add(dir);
  };
  const extract = tar.extract();
  const writing = new Set<Promise<void>>();
  let failed: { error: unknown } | undefined;
  const write = (dest: string, data: Buffer[]) => {
    const done: Promise<void> = writeDurable(dest, data).then(
      () => void writing.delete(done),
      (error: unknown) => {
        failed ??= { error };
        writing.delete(done);
      },
    );
    writing.add(done);
  };
  const lane = async () => {
    while (writing.size >= WRITE_LANES) await Promise.race(writing);
    if (failed) throw failed.error;
  };
  extract.on('entry', (header, stream, next) => {
    const name = path.normalize(header.name).replace(/^(\.\.(\/|$))+/, '');
    const dest = path.join(scratch, name);
    if (!dest.startsWith(scratch + path.sep)) {
      stream.resume();
      return next(new Error(`unexpected entry in the database template: ${header.name}`));
    }
    if (header.type === 'directory') {
      inside(dest);
      mkdir(dest, { recursive: true, mode: 0o700 }).then(() => {
        stream.resume();
        next();
      }, next);
      return;
    }
    if (header.type !== 'file') {
      stream.resume();
      return next();
    }
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('error', next);
    stream.on('end', () => {
      inside(path.dirname(dest));
      write(dest, chunks);
      lane().then(() => next(), next);
    });
  });
  try {
    await pipeline(createReadStream(tarball), createGunzip(), extract);
  } finally {
    // none left writing into the scratch directory, whatever happened
    await Promise.all(writing);
  }
  if (failed) throw failed.error;
  await syncDirectories([...dirs, scratch]);
  await rename(scratch, target);
  await fsync(path.dirname(target));
}

/** Buffers per vectored write (the system's limit, IOV_MAX, is 1,024 on Linux). */
const WRITE_BATCH = 256;

/**
 * Writes `chunks` (the unpacked stream's own buffers, not copied into one) to a new file `dest`
 * (its directory made if missing) and syncs it to the disk.
 */
async function writeDurable(dest: string, chunks: Buffer[]): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
  const handle = await open(dest, 'w', 0o600);
  try {
    let at = 0;
    for (let i = 0; i < chunks.length; i += WRITE_BATCH) {
      const batch = chunks.slice(i, i + WRITE_BATCH);
      const size = batch.reduce((n, c) => n + c.length, 0);
      const { bytesWritten } = await handle.writev(batch, at);
      // a short write (rare: a signal, a nearly full disk) is finished with plain writes, or fails there
      let rest = bytesWritten < size ? Buffer.concat(batch).subarray(bytesWritten) : undefined;
      for (let pos = at + bytesWritten; rest?.length;) {
        const written = (await handle.write(rest, 0, rest.length, pos)).bytesWritten;
        rest = rest.subarray(written);
        pos += written;
      }
      at += size;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Runs initdb and every migration once in memory with the installed PGlite and writes the tarball
 * and its manifest to `dir`, each appearing whole or not at all. Returns the tarball's path.
 */
export async function buildTemplate(dir: string = TEMPLATE_DIR): Promise<string> {
  const [{ openDatabase }, { migrate }, { loadConfig }] = await Promise.all([
    import('./index.js'),
    import('./migrate.js'),
    import('../config.js'),
  ]);
  const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', EMBEDDED_DB_THREAD: 'false' });
  // no template to start from (this makes it): initdb in memory
  const db = await openDatabase(config, { templateDir: path.join(dir, 'none') });
  let bytes: Buffer;
  try {
    await migrate(db.sql);
    bytes = gzipSync(Buffer.from(await (await db.dump!()).arrayBuffer()));
  } finally {
    await db.close();
  }
  await mkdir(dir, { recursive: true });
  const manifest: Manifest = {
    pglite: await pgliteVersion(),
    migrations: await migrationsDigest(),
    sha256: sha256(bytes),
    bytes: bytes.length,
  };
  const tarball = path.join(dir, TARBALL);
  await atomicWrite(tarball, bytes);
  await atomicWrite(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return tarball;
}

async function atomicWrite(file: string, data: Buffer | string): Promise<void> {
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, data);
  await rename(partial, file);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
