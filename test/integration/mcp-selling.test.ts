import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ListItemResultSchema } from '../../mcp/tools/list-item.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { SellerItemsSchema, SellerItemStatusSchema } from '../../src/wire/listings.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { projectDir, uniqueProject, zipOf } from '../helpers/archives.js';
import { connectMcp, countingWallet, textOf } from '../helpers/mcp.js';
import { listItem } from '../helpers/selling.js';
import { zipWithMode } from '../scan-corpus/build.js';
import { freshKey } from '../helpers/wallet-secrets.js';

/**
 * The selling tools through a real MCP client against the real service: a directory packed with
 * its exclusions, the local scan before any fee, the fee within its ceiling, the scan followed to
 * `active`, the inventory, deletion.
 */
let t: ListeningTestContext;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  t = await startListeningTestApp({ SCAN_RETRY_BASE_MS: '0' });
});
afterEach(() => (t.runtime.deps.facilitator as LocalFacilitator).clearFaults());
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

async function connect(opts: Parameters<typeof connectMcp>[1] = {}) {
  const c = await connectMcp(t.base, opts);
  closers.push(c.close);
  return c;
}

const METADATA = {
  title: 'Capybara rate limiter',
  description: 'Token-bucket rate limiting middleware with per-client buckets.',
  tech_stack: 'TypeScript, Node.js',
  price_usdc: 2,
};

const paymentsOf = async (address: string) =>
  (
    await t.runtime.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from x402_payments where lower(payer) = lower(${address})`
  )[0]!.n;

describe('list_item', () => {
  it('packs a directory (honouring .gitignore, leaving out vendored and secret files), pays the fee, and the scan activates it', async () => {
    const secret = freshKey();
    const dir = projectDir({
      ...uniqueProject(),
      '.gitignore': 'build/\n*.log\n',
      'build/bundle.js': 'console.log("generated")\n',
      'debug.log': 'noise\n',
      'node_modules/left-pad/index.js': 'module.exports = 1;\n',
      '.env': `PRIVATE_KEY=${secret}\n`,
      'deploy/id_ed25519': 'not really a key\n',
      'src/lib/.gitignore': 'local.ts\n',
      'src/lib/local.ts': 'export const local = 1;\n',
    });
    symlinkSync('/etc/passwd', path.join(dir, 'passwd-link'));
    const seller = await connect();
    const r = await seller.call('list_item', { source_path: dir, ...METADATA });
    expect(r.isError, textOf(r)).toBeFalsy();
    const listed = ListItemResultSchema.parse(r.structuredContent);
    expect(listed).toMatchObject({ status: 'pending_scan', fee_usdc: 0.01, compression: 'zip' });
    expect(listed.files).toEqual([
      '.gitignore',
      'README.md',
      'package.json',
      'src/index.ts',
      'src/lib/.gitignore',
    ]);
    expect(listed.excluded).toEqual(
      expect.arrayContaining([
        '.env',
        'build/',
        'debug.log',
        'deploy/id_ed25519',
        'node_modules/',
        'passwd-link',
        'src/lib/local.ts',
      ]),
    );
    expect(JSON.stringify(r)).not.toContain(secret.slice(2));
    expect((await seller.call('list_my_orders')).structuredContent).toMatchObject({
      spent_last_24h_usdc: 0.01,
    });

    // the owner waits for the scan while the worker runs it
    const waiting = seller.call('get_listing_status', {
      item_id: listed.item_id,
      wait_seconds: 30,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.runtime.runDueJobs();
    const status = await waiting;
    expect(SellerItemStatusSchema.parse(status.structuredContent)).toEqual({
      status: 'active',
      reason: 'approved',
    });
    expect(status.structuredContent).toMatchObject({ scan_finished: true });

    const mine = SellerItemsSchema.parse(
      (await seller.call('list_my_items', { status: 'active' })).structuredContent,
    );
    expect(mine.items).toEqual([
      expect.objectContaining({ item_id: listed.item_id, title: METADATA.title }),
    ]);

    // the same directory again is the same bytes: refused before any fee
    const payments = await paymentsOf(seller.account.address);
    const dup = await seller.call('list_item', { source_path: dir, ...METADATA });
    expect(dup.isError).toBe(true);
    expect(textOf(dup)).toMatch(/409 duplicate_code.*nothing was paid/);
    expect(await paymentsOf(seller.account.address)).toBe(payments);

    const del = await seller.call('delete_item', { item_id: listed.item_id });
    expect(del.structuredContent).toEqual({ ok: true, item_id: listed.item_id });
    const gone = await seller.call('get_listing_status', { item_id: listed.item_id });
    expect(gone.structuredContent).toMatchObject({ status: 'deleted', reason: 'removed' });
  });

  it('refuses an archive with a planted private key locally: the finding by file and line, no fee', async () => {
    const secret = freshKey();
    const bytes = zipOf({
      ...uniqueProject(),
      'src/config.ts': `export const port = 8080;\nexport const SIGNER_PRIVATE_KEY = '${secret}';\n`,
    });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'mcp-archive-')), 'project.zip');
    writeFileSync(file, bytes);
    const seller = await connect();
    const r = await seller.call('list_item', { source_path: file, ...METADATA });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /refused before any fee.*safety_checks_failed.*secret:wallet_key \(evm_private_key\) in src\/config\.ts line 2.*Nothing was signed or paid/,
    );
    expect(JSON.stringify(r)).not.toContain(secret.slice(2));
    expect(await paymentsOf(seller.account.address)).toBe(0);
  });

  it('refuses a listing fee above the ceiling without signing', async () => {
    const dir = projectDir(uniqueProject());
    const seller = await connect({ limits: { listingFee: 0.005 } });
    const r = await seller.call('list_item', { source_path: dir, ...METADATA });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /listing fee 0\.01 USDC is above this server's listing-fee ceiling of 0\.005 USDC \(MCP_MAX_LISTING_FEE_USDC\)/,
    );
    expect(await paymentsOf(seller.account.address)).toBe(0);
  });

  it('says how to fix a missing source path', async () => {
    const seller = await connect();
    const r = await seller.call('list_item', {
      source_path: path.join(tmpdir(), `missing-${randomUUID()}`),
      ...METADATA,
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/does not exist.*Nothing was paid/);
  });
});

describe('list_item: a listing fee answered as failed may still be mined (s41)', () => {
  it('keeps the fee pending and counted, re-sends the same one for the same archive, and releases it once its window closed', async () => {
    const local = t.runtime.deps.facilitator as LocalFacilitator;
    const { walletOf, signatures } = countingWallet(t.base);
    // a session cap of one fee: a fee released by mistake would let the agent sign a second one
    const { call, account } = await connect({ walletOf, limits: { perSession: 0.01 } });
    const dir = projectDir(uniqueProject());
    const args = { source_path: dir, ...METADATA, title: `Fee retry ${randomUUID()}` };
    const spent = async () =>
      ((await call('list_my_orders')).structuredContent as { spent_last_24h_usdc: number })
        .spent_last_24h_usdc;
    local.injectFault({ op: 'settle', outcome: 'failed' });
    const failed = await call('list_item', args);
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(
      /402 payment_settlement_failed.*may still be mined.*re-sends this same signed fee/,
    );
    expect(signatures()).toBe(1);
    expect(await spent()).toBe(0.01);
    // asked again before its window closed: the same signed fee is re-sent, nothing new signed
    const again = await call('list_item', args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/still pending.*Nothing new was signed.*Do NOT sign a new fee/);
    expect(signatures()).toBe(2);
    expect(await spent()).toBe(0.01);
    expect(await paymentsOf(account.address)).toBe(1);
    // its window closed unmined: the failure is final, the fee released to budget and session
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 60 * 60 * 1000);
      const released = await call('list_item', args);
      expect(released.isError).toBe(true);
      expect(textOf(released)).toMatch(/was released.*nothing was charged/);
      expect(signatures()).toBe(3);
      expect(await spent()).toBe(0);
      const listed = await call('list_item', args);
      expect(listed.isError, textOf(listed)).toBeFalsy();
      expect(signatures()).toBe(4);
      expect(await spent()).toBe(0.01);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a lost answer: the same signed fee is re-sent and lists once, never a second fee', async () => {
    const { walletOf, signatures, deliverAnswers } = countingWallet(t.base, { loseAnswers: true });
    const { call, account } = await connect({ walletOf });
    const args = { source_path: projectDir(uniqueProject()), ...METADATA };
    const first = await call('list_item', args);
    expect(first.isError).toBe(true);
    expect(signatures()).toBe(1);
    deliverAnswers();
    const again = await call('list_item', args);
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(signatures()).toBe(2);
    expect(await paymentsOf(account.address)).toBe(1);
    const mine = await call('list_my_items');
    expect(SellerItemsSchema.parse(mine.structuredContent).items).toHaveLength(1);
  });
});

describe('list_item: a lost answer and the window closed before the next call', () => {
  it('the re-sent fee names its listing: counted, forgotten, nothing new signed', async () => {
    const { walletOf, signatures, deliverAnswers } = countingWallet(t.base, { loseAnswers: true });
    const { call, account } = await connect({ walletOf });
    const args = { source_path: projectDir(uniqueProject()), ...METADATA };
    expect((await call('list_item', args)).isError).toBe(true);
    deliverAnswers();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 60 * 60 * 1000);
      const again = await call('list_item', args);
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(
        /settled and listed it \(item_id [0-9a-f-]{36}\).*do not pay again/,
      );
      expect(signatures()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
    expect(await paymentsOf(account.address)).toBe(1);
    const mine = await call('list_my_items');
    expect(SellerItemsSchema.parse(mine.structuredContent).items).toHaveLength(1);
  });
});

describe('get_listing_status of a rejected listing', () => {
  it('names what to fix: rule, kind, file (REST sellers skip the local pre-check)', async () => {
    const seller = await connect();
    const bytes = zipWithMode(uniqueProject(), {
      name: 'passwd',
      data: '/etc/passwd',
      mode: 0o120777,
      host: 5,
    });
    const id = await listItem(t, seller.account, { bytes, compression: 'zip' });
    await t.runtime.runDueJobs();
    const r = await seller.call('get_listing_status', { item_id: id });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(SellerItemStatusSchema.parse(r.structuredContent)).toEqual({
      status: 'rejected',
      reason: 'safety_checks_failed',
      findings: [{ rule: 'symlink', kind: 'link', file: 'passwd' }],
    });
    expect(r.structuredContent).toMatchObject({
      meaning: expect.stringContaining('symlink in passwd'),
    });
  });
});

describe('seller tools without listings', () => {
  it('get_listing_status, list_my_items and delete_item say what is wrong', async () => {
    const stranger = await connect();
    const status = await stranger.call('get_listing_status', { item_id: randomUUID() });
    expect(status.isError).toBe(true);
    expect(textOf(status)).toMatch(/agent_not_found.*list_item/);
    const items = await stranger.call('list_my_items', {});
    expect(items.isError).toBe(true);
    expect(textOf(items)).toContain('agent_not_found');
    const del = await stranger.call('delete_item', { item_id: randomUUID() });
    expect(del.isError).toBe(true);
    expect(textOf(del)).toContain('agent_not_found');
  });
});
