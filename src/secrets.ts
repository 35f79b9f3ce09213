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
