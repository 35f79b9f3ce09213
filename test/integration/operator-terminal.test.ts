import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { provisionAgent } from '../../src/domain/accounts/accounts.js';
import { createBlobStore } from '../../src/storage/index.js';
import { freePort } from '../helpers/app.js';
import { ensureBuilt, SERVICE_ENTRY } from '../helpers/build.js';
import { freshDataDir } from '../helpers/data-dir.js';
import { createSaleItem } from '../helpers/items.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

const run = promisify(execFile);
// The commands run from the built entry, as `npm run moderate` and the other operator scripts
// run them (ensureBuilt: rebuilt when older than the sources); from source under tsx each
// process took ~1.5x as long (docs/testing.md, "CI's time").
beforeAll(() => ensureBuilt(), 300_000);
const dirs: string[] = [];
let service: ChildProcess | undefined;
afterAll(async () => {
  if (service && service.exitCode === null) service.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/**
 * `npm run moderate` and `npm run payments:unresolved` while `npm start` holds the embedded
 * database (one process per PGlite data directory): they go through the service's operator API
 * with the token kept under DATA_DIR, and straight to the database once the service is gone.
 * (On Postgres every process opens the database itself: moderate-command.test.ts.)
 */
describe.skipIf(ON_POSTGRES)('operator commands beside a running embedded service', () => {
  it('moderate and payments:unresolved work while the service runs, and after it stopped', async () => {
    const dataDir = await freshDataDir('operator-terminal-');
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', IN_PROCESS_WORKER: 'false' };

    // a pending review, written before the service starts (it then holds the database)
    const config = loadConfig(env);
    const db = await openDatabase(config);
    let feedbackId: string;
    try {
      const item = await createSaleItem({ sql: db.sql, storage: createBlobStore(config) });
      const { agent: buyer } = await provisionAgent(
        db.sql,
        `0x${randomBytes(20).toString('hex')}`,
        {
          payoutSalt: 'test',
        },
      );
      const [row] = await db.sql<{ id: string }[]>`
        insert into item_feedback (item_id, buyer_id, rating, text, moderation_status)
        values (${item.itemId}, ${buyer.id}, 7, 'reviewed from the terminal', 'pending')
        returning id`;
      feedbackId = row!.id;
    } finally {
      await db.close();
    }

    const port = await freePort();
    let out = '';
    service = spawn(process.execPath, [SERVICE_ENTRY, 'serve'], {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 120_000;
    while (!out.includes('marketplace ready')) {
      if (service.exitCode !== null) throw new Error(`serve exited: ${out.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`serve did not start: ${out.slice(-2000)}`);
      await sleep(50);
    }
    // the generated token is kept under DATA_DIR; the log names the file once and never holds the
    // token (output piped, not a terminal, as a container's log)
    const tokenFile = path.join(dataDir, 'secrets', 'admin.token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    const shown = out.split('\n').filter((l) => l.includes('operator console: open'));
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain(tokenFile);
    expect(out).not.toContain(token);

    const cli = (...args: string[]) =>
      run(process.execPath, [SERVICE_ENTRY, ...args], {
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    const lines = (s: string) =>
      s
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    const listed = await cli('moderate');
    expect(listed.stderr).not.toContain('in use by process');
    expect(lines(listed.stdout)).toEqual([
      expect.objectContaining({ feedback_id: feedbackId, text: 'reviewed from the terminal' }),
    ]);
    const approved = await cli('moderate', 'approve', feedbackId, 'not-an-id');
    expect((approved as { code?: number }).code).toBe(1);
    expect(lines(approved.stdout)).toEqual([
      { feedback_id: feedbackId, moderation_status: 'approved' },
      { feedback_id: 'not-an-id', error: 'invalid_feedback_id' },
    ]);
    const empty = await cli('moderate', 'list');
    expect(empty.stdout.trim()).toBe('');
    expect(empty.stderr).toContain('moderation queue is empty');
    const unresolved = await cli('unresolved-payments', '--all');
    expect((unresolved as { code?: number }).code ?? 0).toBe(0);
    expect(unresolved.stdout.trim()).toBe('');

    // the approval is in the service's own database: its queue is empty through the API too
    const audit = await fetch(`http://127.0.0.1:${port}/admin/api/moderation`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await audit.json()).toEqual({ items: [] });

    service.kill('SIGTERM');
    await new Promise((r) => service!.once('exit', r));
    expect(existsSync(path.join(dataDir, 'operator-api.json'))).toBe(false);
    // nobody holds the database now: the command opens it itself
    const direct = await cli('moderate', 'list');
    expect(direct.stderr).toContain('moderation queue is empty');
  }, 300_000);
});
