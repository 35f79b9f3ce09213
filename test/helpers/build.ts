import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const MCP_ENTRY = path.join(ROOT, 'dist/mcp/main.js');
/** The service's built entry, what `npm start` and the operator scripts (`npm run moderate`...) run. */
export const SERVICE_ENTRY = path.join(ROOT, 'dist/src/main.js');
/** What the built service runs (scripts/build.mjs bundles it after tsc). */
const BUNDLE_ENTRY = path.join(ROOT, 'dist/bundle/main.js');

async function newestSource(): Promise<number> {
  let newest = 0;
  for (const dir of ['src', 'mcp']) {
    const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
    for (const e of entries) {
      if (!e.isFile() || !e.name.endsWith('.ts')) continue;
      newest = Math.max(newest, (await stat(path.join(e.parentPath, e.name))).mtimeMs);
    }
  }
  return newest;
}

/**
 * The compiled code and its assets (`scripts/build.mjs --code`: `npm run build` less the database
 * template), run when either is missing or older than the sources. Never tsc alone: a dist/ without
 * dist/assets is one `npm start` cannot serve the console from.
 */
export async function ensureBuilt(): Promise<void> {
  const built = await Promise.all(
    [MCP_ENTRY, BUNDLE_ENTRY, path.join(ROOT, 'dist/assets')].map((f) =>
      stat(f).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  if (Math.min(...built) >= (await newestSource())) return;
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--code'], {
    cwd: ROOT,
  });
}

/**
 * What a user runs: `npm run build` (the compiled entry, the assets and the migrated database
 * template), skipped when all three are there and newer than the sources.
 */
export async function ensureNpmBuild(): Promise<void> {
  const built = await Promise.all(
    [
      'dist/src/main.js',
      'dist/bundle/main.js',
      'dist/db-template/manifest.json',
      'dist/assets',
    ].map((f) =>
      stat(path.join(ROOT, f)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  if (Math.min(...built) >= (await newestSource())) return;
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT });
}
