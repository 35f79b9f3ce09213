import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';
import { registerSecret } from './log-redact.js';

export interface Secrets {
  urlSigningKey: Buffer;
  /** Signs scan reports (0x-prefixed 32-byte hex private key). */
  attestationKey: `0x${string}`;
}

/**
 * Production secrets come from the environment and have no defaults (config enforces that when
 * DATABASE_URL is set). The embedded default generates them once and keeps them under DATA_DIR so
 * that signed URLs and the attestation address survive a restart.
 */
export async function loadSecrets(config: Config): Promise<Secrets> {
  const urlSigningKey = config.URL_SIGNING_SECRET
    ? Buffer.from(config.URL_SIGNING_SECRET)
    : await generated(config, 'url-signing.key');
  const attestationKey = config.ATTESTATION_PRIVATE_KEY
    ? (config.ATTESTATION_PRIVATE_KEY.toLowerCase() as `0x${string}`)
    : (`0x${(await generated(config, 'attestation.key')).toString('hex')}` as const);
  // never in a log line, under whatever name (./log-redact.ts)
  registerSecret(urlSigningKey);
  registerSecret(attestationKey);
  return { urlSigningKey, attestationKey };
}

/** A 32-byte key kept in DATA_DIR/secrets/<name> (random per process in memory-only mode). */
async function generated(config: Config, name: string): Promise<Buffer> {
  if (config.EMBEDDED_DB_IN_MEMORY) return randomBytes(32);
  const file = path.resolve(config.DATA_DIR, 'secrets', name);
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const key = randomBytes(32);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process of this deployment wrote it first: use theirs
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
    throw e;
  }
  return key;
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
  const loaded = await adminToken(config);
  registerSecret(loaded.token);
  return loaded;
}

async function adminToken(
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
