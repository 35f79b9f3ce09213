import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { projectDir, uniqueProject, zipOf } from '../helpers/archives.js';
import { spawnBuiltMcp, textOf } from '../helpers/mcp.js';
import { ensureBuilt } from '../helpers/build.js';
import { createSaleItem } from '../helpers/items.js';
import { freshKey } from '../helpers/wallet-secrets.js';

/**
 * A seller and a buyer, each an MCP server spawned from the built entry over stdio by the official
 * client, against the real service on a loopback socket: list a directory (local scan, fee), scan
 * to active, search, quote, acquire (verified and unpacked), rate; the seller's inbox, stats and
 * payouts; a planted key refused with no fee; an over-limit and a repeat purchase sign nothing; the
 * 24-hour budget survives a restart.
 */
let t: ListeningTestContext;
const open: Client[] = [];

beforeAll(async () => {
  [t] = await Promise.all([startListeningTestApp({ SCAN_RETRY_BASE_MS: '0' }), ensureBuilt()]);
}, 300_000);
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await t?.close();
});

async function spawnMcp(key: `0x${string}`, dataDir: string, env: Record<string, string> = {}) {
  // output schemas are checked on every call (the tools are listed)
  const client = await spawnBuiltMcp(
    { MARKETPLACE_URL: t.base, MCP_WALLET_PRIVATE_KEY: key, MCP_DATA_DIR: dataDir, ...env },
    'journey',
  );
  open.push(client);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(JSON.stringify(r)).not.toContain(key.slice(2));
    return r;
  };
  const data = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await call(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return { client, call, data };
}

const paymentsBy = async (key: `0x${string}`) =>
  (
    await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from x402_payments
      where lower(payer) = lower(${privateKeyToAccount(key).address})`
  )[0]!.n;

it('sells, buys, rates and reads the money over stdio, within the limits', async () => {
  const sellerKey = freshKey();
  const buyerKey = freshKey();
  const seller = await spawnMcp(sellerKey, mkdtempSync(path.join(tmpdir(), 'journey-seller-')));
  const buyerDir = mkdtempSync(path.join(tmpdir(), 'journey-buyer-'));
  const buyerEnv = { MCP_MAX_PAYMENT_USDC: '5', MCP_DAILY_LIMIT_USDC: '3' };
  let buyer = await spawnMcp(buyerKey, buyerDir, buyerEnv);

  // the seller lists a local directory: the local scan passes, the fee is paid
  const seed = 'journeyokapi';
  const listed = await seller.data('list_item', {
    source_path: projectDir({ ...uniqueProject(seed), '.env': `PRIVATE_KEY=${freshKey()}\n` }),
    title: 'Okapi retry helpers',
    description: 'Retry with exponential backoff and jitter for flaky network calls.',
    tech_stack: 'TypeScript',
    price_usdc: 2,
  });
  expect(listed).toMatchObject({ status: 'pending_scan', fee_usdc: 0.01 });
  expect(listed.excluded).toContain('.env');
  await t.runtime.runDueJobs();
  expect(
    await seller.data('get_listing_status', { item_id: listed.item_id, wait_seconds: 10 }),
  ).toMatchObject({ status: 'active' });

  // the buyer finds it, quotes, buys (verified and unpacked) and rates it
  const found = await buyer.data('search_items', { q: 'okapi retry helpers' });
  expect(found.items[0].id).toBe(listed.item_id);
  const quote = await buyer.data('quote_item', { item_id: listed.item_id });
  expect(quote).toMatchObject({ price_usdc: 2, limits: { within_limits: true } });
  const bought = await buyer.data('acquire_item', {
    item_id: listed.item_id,
    max_price_usdc: 2,
    accept_terms: true,
    unpack: true,
  });
  expect(bought.archive).toMatchObject({ sha256: listed.sha256, verified: true });
  expect(bought.unpacked.files).toEqual(['README.md', 'package.json', 'src/index.ts']);
  expect(readFileSync(path.join(bought.unpacked.dir, 'src/index.ts'), 'utf8')).toContain(seed);
  expect(await buyer.data('submit_feedback', { item_id: listed.item_id, rating: 9 })).toMatchObject(
    { moderation_status: 'approved' },
  );

  // the seller sees the rating, the sale and the receivable
  const inbox = await seller.data('read_inbox');
  expect(inbox.items).toEqual([expect.objectContaining({ item_id: listed.item_id, rating: 9 })]);
  const stats = await seller.data('get_seller_stats');
  expect(stats.revenue.sales_count).toBe(1);
  const payouts = await seller.data('get_payouts');
  expect(payouts.summary).toMatch(/base: 1\.\d+ USDC receivable/);

  // a planted private key is refused locally: no fee
  const sellerPayments = await paymentsBy(sellerKey);
  const planted = path.join(mkdtempSync(path.join(tmpdir(), 'journey-key-')), 'leak.zip');
  writeFileSync(
    planted,
    zipOf({ ...uniqueProject(), 'src/keys.ts': `export const DEPLOYER_KEY = '${freshKey()}';\n` }),
  );
  const refused = await seller.call('list_item', {
    source_path: planted,
    title: 'Leaky',
    description: 'Has a key in it.',
    tech_stack: 'TypeScript',
    price_usdc: 1,
  });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toMatch(/secret:wallet_key \(evm_private_key\) in src\/keys\.ts line 1/);
  expect(await paymentsBy(sellerKey)).toBe(sellerPayments);

  // an over-limit purchase and a repeat purchase sign nothing
  const buyerPayments = await paymentsBy(buyerKey);
  const dear = await createSaleItem(t.runtime.deps, {
    priceUsdc: 6,
    bytes: zipOf(uniqueProject()),
  });
  const over = await buyer.call('acquire_item', {
    item_id: dear.itemId,
    max_price_usdc: 10,
    accept_terms: true,
  });
  expect(over.isError).toBe(true);
  expect(textOf(over)).toMatch(/cap of 5 USDC per purchase \(MCP_MAX_PAYMENT_USDC\)/);
  const repeat = await buyer.call('acquire_item', {
    item_id: listed.item_id,
    max_price_usdc: 2,
    accept_terms: true,
  });
  expect(repeat.isError).toBe(true);
  expect(textOf(repeat)).toContain(`order_id ${bought.order_id}`);
  expect(await paymentsBy(buyerKey)).toBe(buyerPayments);

  // the 24-hour budget (3 USDC, 2 spent) survives a restart of the buyer's server
  await buyer.client.close();
  buyer = await spawnMcp(buyerKey, buyerDir, buyerEnv);
  const next = await createSaleItem(t.runtime.deps, {
    priceUsdc: 1.5,
    bytes: zipOf(uniqueProject()),
  });
  const budget = await buyer.call('acquire_item', {
    item_id: next.itemId,
    max_price_usdc: 2,
    accept_terms: true,
  });
  expect(budget.isError).toBe(true);
  expect(textOf(budget)).toMatch(/budget of 3 USDC per rolling 24 hours.*2 USDC already spent/);
  expect(await paymentsBy(buyerKey)).toBe(buyerPayments);
  expect((await buyer.data('list_my_orders')).orders).toHaveLength(1);
}, 180_000);
