import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScanJob } from '../../src/domain/scan/scan-job.js';
import { claimJob } from '../../src/jobs/queue.js';
import { runDueJobs, startJobRunner } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/runtime.js';
import { tarGzOf, uniqueProject, zipOf } from '../helpers/archives.js';
import { BENIGN_PROJECTS } from '../helpers/corpus.js';
import { hostileCorpus, SLIP_MARKER } from '../helpers/hostile.js';
import {
  listItem,
  sellerStatus,
  upload,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({
    SCAN_MAX_ATTEMPTS: '2',
    MAX_ACTIVE_LISTINGS: '1000',
    SCAN_RETRY_BASE_MS: '60000',
  });
});
afterAll(() => t?.close());

const PUBLIC_REASONS = [
  'pending_review',
  'approved',
  'safety_checks_failed',
  'insufficient_complexity',
  'duplicate_content',
  'processing_error',
  'removed',
];

describe('hostile corpus through upload and the worker', async () => {
  const corpus = await hostileCorpus();
  const seller = newWallet();
  it.each(corpus.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    if (!c.uploadable) {
      // Refused before any fee is due: nothing stored, no prompt.
      const keys = await t.blobFiles();
      const { first } = await upload(t, seller, { bytes: c.bytes, compression: c.compression });
      expect(first.statusCode).toBe(400);
      expect(first.json()).toMatchObject({ error: 'unsupported_archive' });
      expect(first.headers['payment-required']).toBeUndefined();
      expect(await t.blobFiles()).toEqual(keys);
      return;
    }
    const id = await listItem(t, seller, { bytes: c.bytes, compression: c.compression });
    const keys = await t.blobFiles();
    await t.work();
    const status = await sellerStatus(t, seller, id);
    expect(status).toEqual({ status: 'rejected', reason: c.reason, findings: expect.any(Array) });
    // The owner sees the rule, kind, file and line of what to fix; never a value.
    expect(status.findings![0]!.rule).toBe(c.check);
    // The detailed finding is kept for operators only.
    const [result] = await t.runtime.deps.sql<{ findings: Array<{ check: string }> }[]>`
      select findings from scan_results where item_id = ${id} order by id desc limit 1`;
    expect(result!.findings[0]!.check).toBe(c.check);
    if (c.finding) expect(result!.findings[0]).toEqual(c.finding);
    const pub = await t.app.inject(`/api/v1/items/${id}/status`);
    expect(pub.statusCode).toBe(404);
    if (c.secret) {
      // A secret is named by kind, file and line: its value is stored and shown nowhere.
      const rows = await t.runtime.deps.sql`
        select s.*, i.status_reason from scan_results s join items i on i.id = s.item_id
        where s.item_id = ${id}`;
      expect(JSON.stringify(rows)).not.toContain(c.secret);
      expect(JSON.stringify(status)).not.toContain(c.secret);
    }
    // Nothing was written anywhere: the blob store holds exactly what it held, no traversal target exists.
    expect(await t.blobFiles()).toEqual(keys);
    expect(existsSync(`/tmp/${SLIP_MARKER}`)).toBe(false);
    expect(existsSync(`/tmp/${SLIP_MARKER}-abs`)).toBe(false);
  });

  it('public reasons never carry findings', async () => {
    const rows = await t.runtime.deps.sql<
      { statusReason: string }[]
    >`select distinct status_reason from items`;
    for (const r of rows) expect(PUBLIC_REASONS).toContain(r.statusReason);
  });
});

describe('benign corpus', () => {
  it('every realistic project becomes active, searchable at once', async () => {
    const seller = newWallet();
    const ids: Record<string, string> = {};
    for (const [name, files] of Object.entries(BENIGN_PROJECTS)) {
      const tar = name.length % 2 === 0;
      ids[name] = await listItem(t, seller, {
        bytes: tar ? await tarGzOf(files) : zipOf(files),
        compression: tar ? 'tar.gz' : 'zip',
        metadata: {
          title: `Benign ${name}`,
          description: `A realistic ${name} project`,
          tech_stack: name,
          prices: { USDC: 2.5 },
        },
      });
      expect(await sellerStatus(t, seller, ids[name]!)).toEqual({
        status: 'pending_scan',
        reason: 'pending_review',
      });
    }
    await t.work();
    for (const [name, id] of Object.entries(ids)) {
      expect(await sellerStatus(t, seller, id), name).toEqual({
        status: 'active',
        reason: 'approved',
      });
      const detail = await t.app.inject(`/api/v1/items/${id}`);
      expect(detail.statusCode).toBe(200);
      const [row] = await t.runtime.deps.sql`select embedding_dims from items where id = ${id}`;
      expect(row!.embeddingDims).toBe(t.runtime.deps.embedder.dimensions);
    }
    const search = await t.app.inject(
      // the listing's own words: the relevance floor drops listings that share only the stack
      `/api/v1/search?q=${encodeURIComponent('realistic rust-lib project')}`,
    );
    expect(search.statusCode).toBe(200);
    expect((search.json() as Array<{ id: string }>).map((r) => r.id)).toContain(ids['rust-lib']);
  });
});

describe('near-duplicates', () => {
  it('a renamed, re-packed, lightly edited copy of an active listing is duplicate_content', async () => {
    const original = uniqueProject();
    const a = newWallet();
    const b = newWallet();
    const first = await listItem(t, a, { bytes: zipOf(original) });
    await t.work();
    expect(await sellerStatus(t, a, first)).toMatchObject({ status: 'active' });

    const src = original['src/index.ts'] as string;
    const copy = {
      'lib/main.ts': src.replace('// module', '// my own module'),
      'package.json': original['package.json']!,
      'NOTES.md': 'Copied and improved.\n',
    };
    const second = await listItem(t, b, { bytes: await tarGzOf(copy), compression: 'tar.gz' });
    await t.work();
    expect(await sellerStatus(t, b, second)).toEqual({
      status: 'rejected',
      reason: 'duplicate_content',
      findings: [{ rule: 'near_duplicate', kind: 'duplicate' }],
    });

    // An unrelated project of the same shape is not a near-copy.
    const third = await listItem(t, b, { bytes: zipOf(uniqueProject()) });
    await t.work();
    expect(await sellerStatus(t, b, third)).toEqual({ status: 'active', reason: 'approved' });
  });

  it('two near-copies scanned at once by two workers: one goes live, the other is duplicate_content', async () => {
    const original = uniqueProject();
    const copy = {
      ...original,
      'src/index.ts': (original['src/index.ts'] as string).replace('// module', '// forked module'),
    };
    const [a, b] = [newWallet(), newWallet()];
    const first = await listItem(t, a, { bytes: zipOf(original) });
    const second = await listItem(t, b, { bytes: await tarGzOf(copy), compression: 'tar.gz' });
    const { sql } = t.runtime.deps;
    // Two workers each claim one job; both look for an active twin before either commits (held at
    // a barrier here; on a real server the separate worker processes simply overlap).
    const jobs = [await claimJob(sql, 60), await claimJob(sql, 60)];
    expect(jobs.map((j) => j?.payload.item_id).sort()).toEqual([first, second].sort());
    let arrived = 0;
    let release!: () => void;
    const bothLooking = new Promise<void>((r) => (release = r));
    const overlapping = Object.assign((strings: TemplateStringsArray, ...values: never[]) => {
      if (
        Array.isArray(strings) &&
        strings.join('').includes('from item_fingerprints f join items i')
      ) {
        if (++arrived === 2) release();
        return bothLooking.then(() => sql(strings, ...values));
      }
      return sql(strings, ...values);
    }, sql) as unknown as typeof sql;
    await Promise.all(jobs.map((j) => runScanJob({ ...t.runtime.deps, sql: overlapping }, j!)));
    const statuses = [await sellerStatus(t, a, first), await sellerStatus(t, b, second)];
    expect(statuses.map((s) => `${s.status}/${s.reason}`).sort()).toEqual([
      'active/approved',
      'rejected/duplicate_content',
    ]);
  });
});

describe('jobs', () => {
  it('retries with backoff, then processing_error; the archive is not banned', async () => {
    const seller = newWallet();
    const bytes = zipOf(uniqueProject());
    const id = await listItem(t, seller, { bytes });
    const [item] = await t.runtime.deps.sql<
      { archiveKey: string }[]
    >`select archive_key from items where id = ${id}`;
    // Make the blob unreadable: the scan fails for infrastructure reasons.
    await t.runtime.deps.storage.delete(item!.archiveKey);
    await t.work();
    expect(await sellerStatus(t, seller, id)).toEqual({
      status: 'scanning',
      reason: 'pending_review',
    });
    const [job] = await t.runtime.deps.sql<{ state: string; attempts: number; waitS: number }[]>`
      select state, attempts, extract(epoch from run_after - now())::float8 as wait_s from jobs where item_id = ${id}`;
    expect(job).toMatchObject({ state: 'queued', attempts: 1 });
    expect(job!.waitS).toBeGreaterThan(50); // backoff: SCAN_RETRY_BASE_MS × 2^(attempt-1)
    expect(await t.work()).toBe(0);
    await t.runtime.deps.sql`update jobs set run_after = now() where item_id = ${id}`;
    await t.work();
    expect(await sellerStatus(t, seller, id)).toEqual({
      status: 'rejected',
      reason: 'processing_error',
      findings: [{ rule: 'processing_error', kind: 'processing' }],
    });
    const [done] = await t.runtime.deps.sql`select state, attempts from jobs where item_id = ${id}`;
    expect(done).toMatchObject({ state: 'failed', attempts: 2 });
    const banned = await t.runtime.deps.sql`select 1 from rejected_archives where item_id = ${id}`;
    expect(banned.length).toBe(0);
    // The seller may upload the same bytes again.
    const again = await listItem(t, seller, { bytes });
    expect(again).not.toBe(id);
    await t.work();
    expect(await sellerStatus(t, seller, again)).toEqual({ status: 'active', reason: 'approved' });
  });

  it("a crashed worker's job is picked up again when its lease runs out", async () => {
    const seller = newWallet();
    const id = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const { sql } = t.runtime.deps;
    const job = await claimJob(sql, 60);
    expect(job?.payload.item_id).toBe(id);
    // The worker "crashes" in the middle of the scan (its archive read never returns): nothing
    // finishes the job. Nobody else can take it while leased.
    const storage = t.runtime.deps.storage;
    const hung: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      createReadStream: () => new Promise<never>(() => {}),
    });
    void runScanJob({ ...t.runtime.deps, storage: hung }, job!);
    await new Promise((r) => setTimeout(r, 200));
    expect(await claimJob(sql, 60)).toBeUndefined();
    expect(await sellerStatus(t, seller, id)).toMatchObject({ status: 'scanning' });
    await sql`update jobs set locked_until = now() - interval '1 second' where id = ${job!.id}`;
    expect(await t.runtime.runDueJobs()).toBe(1);
    expect(await sellerStatus(t, seller, id)).toEqual({ status: 'active', reason: 'approved' });
  });

  it('a job whose worker dies during every attempt ends as processing_error instead of looping', async () => {
    const seller = newWallet();
    const id = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const { sql } = t.runtime.deps;
    const storage = t.runtime.deps.storage;
    const hung: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      createReadStream: () => new Promise<never>(() => {}),
    });
    for (let attempt = 1; attempt <= 2; attempt++) {
      // SCAN_MAX_ATTEMPTS is 2 here: each attempt's worker dies mid-scan, its lease runs out
      const job = await claimJob(sql, 60);
      expect(job).toMatchObject({ attempts: attempt, payload: { item_id: id } });
      void runScanJob({ ...t.runtime.deps, storage: hung }, job!);
      await new Promise((r) => setTimeout(r, 50));
      await sql`update jobs set locked_until = now() - interval '1 second' where id = ${job!.id}`;
    }
    expect(await t.runtime.runDueJobs()).toBe(1);
    expect(await sellerStatus(t, seller, id)).toEqual({
      status: 'rejected',
      reason: 'processing_error',
      findings: [{ rule: 'processing_error', kind: 'processing' }],
    });
    const [job] = await sql<{ state: string }[]>`select state from jobs where item_id = ${id}`;
    expect(job!.state).toBe('failed');
  });

  it('a job that runs longer than its lease keeps it: its worker renews it, nobody else takes it', async () => {
    const seller = newWallet();
    const id = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const deps = {
      ...t.runtime.deps,
      config: { ...t.runtime.deps.config, SCAN_LEASE_SECONDS: 0.3 },
    };
    // The scan is slow: its archive read waits until the test lets it go.
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const storage = deps.storage;
    const slowStorage: typeof storage = Object.assign(Object.create(storage) as typeof storage, {
      createReadStream: async (key: string) => {
        await slow;
        return storage.createReadStream(key);
      },
    });
    const running = runDueJobs(deps, jobHandlers({ ...deps, storage: slowStorage }), 1);
    await new Promise((r) => setTimeout(r, 700)); // more than twice the lease
    expect(await claimJob(deps.sql, 0.3)).toBeUndefined();
    release();
    expect(await running).toBe(1);
    expect(await sellerStatus(t, seller, id)).toEqual({ status: 'active', reason: 'approved' });
  });

  it('the in-process worker loop picks up an upload at once and stops cleanly', async () => {
    const seller = newWallet();
    const deps = t.runtime.deps;
    const stop = startJobRunner(
      { ...deps, config: { ...deps.config, WORKER_POLL_MS: 60_000 } },
      jobHandlers(deps),
      deps.work,
    );
    try {
      const id = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
      let status = await sellerStatus(t, seller, id);
      for (let i = 0; i < 100 && status.status !== 'active'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = await sellerStatus(t, seller, id);
      }
      expect(status).toEqual({ status: 'active', reason: 'approved' });
    } finally {
      await stop();
    }
  });

  it('two workers never take the same job', async () => {
    const seller = newWallet();
    for (let i = 0; i < 4; i++) await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const claims = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() => claimJob(t.runtime.deps.sql, 60)),
    );
    const ids = claims.filter(Boolean).map((j) => j!.id);
    expect(ids.length).toBe(4);
    expect(new Set(ids).size).toBe(4);
    await t.runtime.deps
      .sql`update jobs set locked_until = now() - interval '1 second' where id = any(${ids})`;
    expect(await t.runtime.runDueJobs()).toBe(4);
  });
});
