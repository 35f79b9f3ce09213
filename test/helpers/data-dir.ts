import { cp, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { dbTemplate } from './app.js';

// beside, not inside, global-setup's cache directory (it removes files of old templates there)
const CACHE_DIR = path.resolve('node_modules/.cache/marketplace-test-pgdata');
let prepared: Promise<string | undefined> | undefined;

/**
 * The run's database template (./global-setup.ts) as an embedded data directory on disk, made
 * once and kept between runs like the template: copying it is far cheaper than loading the dump,
 * let alone initdb. Undefined without a template (TEST_DB_TEMPLATE=off).
 */
function templateOnDisk(): Promise<string | undefined> {
  prepared ??= (async () => {
    const template = dbTemplate();
    if (!template) return undefined;
    const dir = path.join(CACHE_DIR, `${path.basename(inject('dbTemplate'), '.tar')}.pgdata`);
    if (await stat(path.join(dir, 'PG_VERSION')).catch(() => undefined)) return dir;
    // older copies (other migrations) go
    for (const old of await readdir(CACHE_DIR).catch(() => [] as string[]))
      await rm(path.join(CACHE_DIR, old), { recursive: true, force: true });
    await mkdir(CACHE_DIR, { recursive: true });
    const scratch = await mkdtemp(path.join(CACHE_DIR, 'making-'));
    const config = loadConfig({ DATA_DIR: scratch, LOG_LEVEL: 'silent' });
    await (await openDatabase(config, { template })).close();
    // appears whole or not at all; another worker may have made it first
    await rename(path.join(scratch, 'pg'), dir).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
    return dir;
  })();
  return prepared;
}

/**
 * A new DATA_DIR on disk whose embedded database holds every migration (a copy of the template),
 * for a service process the test starts, kills and restarts.
 */
export async function freshDataDir(prefix: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  const template = await templateOnDisk();
  if (template) await cp(template, path.join(dataDir, 'pg'), { recursive: true });
  return dataDir;
}
