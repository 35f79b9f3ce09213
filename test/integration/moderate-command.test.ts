import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeListing, buy, callAs } from '../helpers/accounts.js';
import { ensureBuilt, SERVICE_ENTRY } from '../helpers/build.js';
import { databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';
import { startSellingApp } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

const run = promisify(execFile);
// The commands run from the built entry, as `npm run moderate` and the other operator scripts
// run them (ensureBuilt: rebuilt when older than the sources); from source under tsx each
// process took ~1.5x as long (docs/testing.md, "CI's time").
beforeAll(() => ensureBuilt(), 300_000);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm run moderate (the operator command)', () => {
  it('lists pending feedback with item, text and who wrote it about whom, approves by id; the seller then reads it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'moderate-'));
    dirs.push(dataDir);
    // the embedded database on disk, or on the Postgres tier a database of the cluster
    const env = ON_POSTGRES
      ? await databaseEnv()
      : { EMBEDDED_DB_IN_MEMORY: 'false', DATA_DIR: dataDir };
    const seller = newWallet();
    const buyer = newWallet();
    let t = await startSellingApp(env);
    const itemId = await activeListing(t, seller, { title: 'Moderated widget' });
    await buy(t, buyer, itemId);
    const given = await callAs(t, buyer, 'POST', `/api/v1/items/${itemId}/feedback`, {
      rating: 9,
      text: 'works as described',
    });
    expect(given.json().moderation_status).toBe('pending');
    const feedbackId = given.json().feedback_id as string;
    await t.close(); // the embedded database belongs to one process at a time

    // the command as `npm run moderate` runs it: one node process on the built entry
    const cliEnv = { ...process.env, DATA_DIR: dataDir, ...env, LOG_LEVEL: 'silent' };
    const moderate = (...args: string[]) =>
      run(process.execPath, [SERVICE_ENTRY, 'moderate', ...args], {
        env: cliEnv,
      }).catch((e: { code: number; stdout: string }) => e);
    const listed = await moderate();
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toEqual([
      {
        feedback_id: feedbackId,
        item_id: itemId,
        item_title: 'Moderated widget',
        buyer_username: expect.stringMatching(/\S/),
        seller_username: expect.stringMatching(/\S/),
        rating: 9,
        text: 'works as described',
        created_at: expect.any(String),
      },
    ]);
    // verdicts by id; an id that is not a pending feedback is reported and fails the command
    const approved = await moderate('approve', feedbackId, 'not-an-id');
    expect((approved as { code?: number }).code).toBe(1);
    expect(
      approved.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { feedback_id: feedbackId, moderation_status: 'approved' },
      { feedback_id: 'not-an-id', error: 'invalid_feedback_id' },
    ]);

    t = await startSellingApp(env);
    try {
      const inbox = (await callAs(t, seller, 'GET', '/api/v1/inbox')).json();
      expect(inbox.items).toEqual([
        expect.objectContaining({ feedback_id: feedbackId, text: 'works as described', rating: 9 }),
      ]);
      // nothing is pending any more, and a verdict is final
      const { moderateCommand } = await import('../../src/domain/feedback/moderation.js');
      expect((await moderateCommand(t.runtime.deps.sql, ['list'])).lines).toEqual([]);
      const again = await moderateCommand(t.runtime.deps.sql, ['reject', feedbackId]);
      expect(again.ok).toBe(false);
      expect(JSON.parse(again.lines[0]!)).toMatchObject({ error: 'feedback_not_found' });
    } finally {
      await t.close();
    }
    // two starts of the embedded database and two CLI processes on a shared machine: a safety
    // net against a hang, not a claim about speed (159 s of the 300 s it had at load 13-16)
  }, 900_000);
});
