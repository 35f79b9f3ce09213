import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * Production secrets come from the environment and have no defaults (config enforces that when
 * DATABASE_URL is set). The embedded default generates them once and keeps them under DATA_DIR so
 * that signed URLs survive a restart.
 */
export async function loadSecrets(config: Config): Promise<{ urlSigningKey: Buffer }> {
  if (config.URL_SIGNING_SECRET) return { urlSigningKey: Buffer.from(config.URL_SIGNING_SECRET) };
  if (config.EMBEDDED_DB_IN_MEMORY) return { urlSigningKey: randomBytes(32) };
  const file = path.resolve(config.DATA_DIR, 'secrets', 'url-signing.key');
  try {
    return { urlSigningKey: Buffer.from((await readFile(file, 'utf8')).trim(), 'hex') };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const key = randomBytes(32);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  return { urlSigningKey: key };
}

/** Where the embedded default keeps the operator token it generated (docs/console.md). */
export const adminTokenFile = (config: Pick<Config, 'DATA_DIR'>) =>
  path.resolve(config.DATA_DIR, 'secrets', 'admin.token');

/**
 * The operator credential of /admin and the operator API: ADMIN_TOKEN (required with DATABASE_URL,
 * see config.ts) or, embedded, a token generated once and kept under DATA_DIR. `created` is true
 * only on the start that generated it, whose log shows it once. In memory (tests) a fresh random
 * token nobody knows: the console refuses everyone unless ADMIN_TOKEN is set.
 */
export async function loadAdminToken(
  config: Config,
): Promise<{ token: string; created: boolean; file?: string }> {
  if (config.ADMIN_TOKEN) return { token: config.ADMIN_TOKEN, created: false };
  if (config.EMBEDDED_DB_IN_MEMORY)
    return { token: randomBytes(32).toString('hex'), created: false };
  const file = adminTokenFile(config);
  try {
    return { token: (await readFile(file, 'utf8')).trim(), created: false, file };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = randomBytes(24).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, token, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process of this data directory wrote it first: use theirs
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { token: (await readFile(file, 'utf8')).trim(), created: false, file };
  }
  return { token, created: true, file };
}
