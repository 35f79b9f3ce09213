import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/**
 * The built entry as `npm run payments:unresolved -- --al` runs it: the typo is refused before the
 * command opens (and so creates) the embedded database, with the usage on stderr and exit 1.
 * Before, it made DATA_DIR, ran the command without the flag and exited 0. A serving command
 * (`npm start -- --port 4000`) is refused as well, and before the entry's early start made the
 * data directory and unpacked the database's template into it for a service that never ran.
 */
describe('a command with an argument it does not take', () => {
  it('exits 1 with its usage and touches nothing', async () => {
    await ensureBuilt();
    const parent = await mkdtemp(path.join(tmpdir(), 'operator-args-'));
    dirs.push(parent);
    const dataDir = path.join(parent, 'data');
    for (const args of [
      ['unresolved-payments', '--al'],
      ['reindex', '--froce'],
      ['moderate', 'list', '--all'],
      ['serve', '--port', '4000'],
      ['demo', '--reset'],
    ]) {
      const r = await run(process.execPath, ['dist/src/main.js', ...args], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
      }).then(
        (ok) => ({ code: 0, ...ok }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(r.code, args.join(' ')).toBe(1);
      expect(`${r.stderr}${r.stdout}`, args.join(' ')).toMatch(
        /usage: (unresolved-payments|reindex|moderate|serve|demo)/,
      );
      expect(existsSync(dataDir), args.join(' ')).toBe(false);
    }
  }, 300_000);
});
