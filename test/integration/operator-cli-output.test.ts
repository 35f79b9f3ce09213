import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { provisionAgent } from '../../src/domain/accounts/accounts.js';
import { createBlobStore } from '../../src/storage/index.js';
import { freshDataDir } from '../helpers/data-dir.js';
import { ensureBuilt, SERVICE_ENTRY } from '../helpers/build.js';
import { createSaleItem } from '../helpers/items.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';

const run = promisify(execFile);
// The commands run from the built entry, as `npm run moderate` and the other operator scripts
// run them (ensureBuilt: rebuilt when older than the sources); from source under tsx each
// process took ~1.5x as long (docs/testing.md, "CI's time").
beforeAll(() => ensureBuilt(), 300_000);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Every line of a command's stdout, each of which must be one JSON object. */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * The operator commands as a script runs them (stdout piped, logs at info, no FACILITATOR_URL so
 * the dev-ledger warning is logged): stdout holds the command's results and nothing else, the log
 * lines are on stderr (docs/console.md). On a pipe `reindex` and `previews` write plain progress
 * lines instead of a bar that only a terminal shows.
 */
describe('one-shot operator commands: results on stdout, logs and progress on stderr', () => {
  it('migrate, moderate, payments:unresolved, reindex and previews', async () => {
    const dataDir = await freshDataDir('operator-cli-');
    dirs.push(dataDir);
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      ...(await databaseEnv()),
      LOG_LEVEL: 'info',
      PROGRESS_INTERVAL_MS: '10',
    };
    const config = loadConfig(env);
    const db = await openDatabase(config);
    let feedbackId: string;
    try {
      const storage = createBlobStore(config);
      const items = [];
      for (let i = 0; i < 6; i++)
        items.push(await createSaleItem({ sql: db.sql, storage }, { title: `Widget ${i}` }));
      const { agent: buyer } = await provisionAgent(
        db.sql,
        `0x${randomBytes(20).toString('hex')}`,
        { payoutSalt: 'test' },
      );
      const [row] = await db.sql<{ id: string }[]>`
        insert into item_feedback (item_id, buyer_id, rating, text, moderation_status)
        values (${items[0]!.itemId}, ${buyer.id}, 8, 'read by a script', 'pending')
        returning id`;
      feedbackId = row!.id;
    } finally {
      await db.close();
    }
    const childEnv = { ...process.env, ...env };
    delete childEnv.FACILITATOR_URL;
    const cli = (...args: string[]) =>
      run(process.execPath, [SERVICE_ENTRY, ...args], { env: childEnv });

    const migrated = await cli('migrate');
    expect(jsonLines(migrated.stdout)).toEqual([{ applied: [], already: expect.any(Number) }]);
    expect(migrated.stderr).toContain('migrations done');

    const moderated = await cli('moderate', 'list');
    expect(jsonLines(moderated.stdout)).toEqual([
      expect.objectContaining({ feedback_id: feedbackId, text: 'read by a script' }),
    ]);
    // the warning that used to be line 1 of stdout: the dev ledger on a server database, the
    // operator token just generated on the embedded one
    expect(moderated.stderr).toMatch(
      ON_POSTGRES ? /built-in local facilitator/ : /operator console: open/,
    );

    const unresolved = await cli('unresolved-payments', '--all');
    expect(unresolved.stdout).toBe('');
    expect(unresolved.stderr).toContain('unresolved settlements listed');

    const reindexed = await cli('reindex', '--force');
    expect(jsonLines(reindexed.stdout)).toEqual([
      { reindexed: 6, model: expect.any(String), dimensions: expect.any(Number) },
    ]);
    const progress = reindexed.stderr.split('\n').filter((l) => l.startsWith('reindex: '));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const line of progress) {
      expect(line).toMatch(/^reindex: \d+\/6 listings \(\d+%\), \d+\.\d\/s, eta (\d+s|unknown)$/);
    }
    expect(progress.at(-1)).toMatch(/^reindex: 6\/6 listings \(100%\), .*eta 0s$/);
    // no terminal control sequences on a pipe
    expect(reindexed.stderr).not.toContain('\x1b');

    const previews = await cli('previews', '--force');
    const [summary, ...more] = jsonLines(previews.stdout);
    expect(more).toEqual([]);
    expect(summary).toEqual(expect.objectContaining({ total: 6 }));
    expect(previews.stderr).toMatch(/^previews: 6\/6 listings \(100%\), \d+ skipped, /m);
    // a safety net against a hang, not a claim about speed: five command processes one after
    // another took 192 s of the 300 s this had at load 13-16 on two cores
  }, 900_000);
});
