import type { LocalAccount } from 'viem';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_OF, type Chain } from '../../src/wire/chains.js';
import { runPayouts } from '../../src/domain/payouts/payout-job.js';
import { PayoutTokenMissing, type PayoutRail } from '../../src/domain/payouts/rail.js';
import { periodicTasks } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { activeListing, buy, callAs } from '../helpers/accounts.js';
import { zipOf } from '../helpers/archives.js';
import { listItem, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

// An allocation that does not divide evenly, so every floor and remainder shows.
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ PAYOUT_SELLER_BPS: '9333', PAYOUT_PLATFORM_BPS: '667' });
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;
const local = () => deps().facilitator as LocalFacilitator;
const balance = async (chain: Chain, address: string) =>
  BigInt(await local().balanceOf(NETWORK_OF[chain], address));
const payouts = async (wallet: LocalAccount) => {
  const res = await callAs(t, wallet, 'GET', '/api/v1/seller/payouts');
  expect(res.statusCode).toBe(200);
  return res.json() as {
    payouts: Array<Record<string, unknown> & { chain: Chain; payout_address: string }>;
    payout_history: Array<Record<string, string>>;
  };
};
const payoutAddress = async (wallet: LocalAccount, chain: Chain) => {
  const [row] = await deps().sql<{ address: string }[]>`
    select p.address from payout_addresses p join agents a on a.id = p.agent_id
    where a.address = ${wallet.address.toLowerCase()} and p.chain = ${chain}`;
  return row!.address;
};
const floorShare = (amount: bigint, bps: bigint) => (amount * bps) / 10_000n;

describe('identity', () => {
  it('stats and payouts answer agent_not_found to a wallet that never paid', async () => {
    const stranger = newWallet();
    for (const url of ['/api/v1/seller/stats', '/api/v1/seller/payouts']) {
      const res = await callAs(t, stranger, 'GET', url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toBe('agent_not_found');
    }
  });
});

describe('seller stats', () => {
  it('counts listings by status, completed sales (gross and seller share) and the ten latest sales', async () => {
    const seller = newWallet();
    const sold = await activeListing(t, seller, {
      title: 'Sold thing',
      prices: { USDC: 1.234567 },
    });
    const removed = await activeListing(t, seller);
    expect((await callAs(t, seller, 'DELETE', `/api/v1/items/${removed}`)).statusCode).toBe(200);
    await listItem(t, seller, { bytes: zipOf({ 'x.py': 'print(1)\n' }) });
    await t.work(); // rejected: insufficient_complexity

    const empty = (await callAs(t, seller, 'GET', '/api/v1/seller/stats')).json();
    expect(empty).toEqual({
      wallet_address: getAddress(seller.address),
      items: { pending_scan: 0, scanning: 0, active: 1, rejected: 1, deleted: 1, total: 3 },
      revenue: { sales_count: 0, by_currency: [] },
      recent_sales: [],
    });

    const orders: string[] = [];
    for (let i = 0; i < 11; i++) {
      orders.push((await buy(t, newWallet(), sold, i % 3 === 0 ? 'polygon' : 'base')).order_id);
    }
    const stats = (await callAs(t, seller, 'GET', '/api/v1/seller/stats')).json();
    // 4 on polygon, 7 on base; the share is floored per chain, as each contract forwards it
    const gross = 11n * 1_234_567n;
    const share = floorShare(4n * 1_234_567n, 9333n) + floorShare(7n * 1_234_567n, 9333n);
    expect(stats.revenue).toEqual({
      sales_count: 11,
      by_currency: [
        {
          currency: 'USDC',
          decimals: 6,
          sales_count: 11,
          gross_raw: gross.toString(),
          gross: '13.580237',
          seller_share_raw: share.toString(),
          seller_share: (Number(share) / 1e6).toFixed(6).replace(/0+$/, ''),
        },
      ],
    });
    expect(stats.recent_sales).toHaveLength(10);
    expect(stats.recent_sales.map((s: { order_id: string }) => s.order_id)).toEqual(
      orders.slice(1).reverse(),
    );
    expect(stats.recent_sales[0]).toEqual({
      order_id: orders[10],
      item_id: sold,
      title: 'Sold thing',
      currency: 'USDC',
      amount_raw: '1234567',
      amount: '1.234567',
      chain: 'base',
      completed_at: expect.any(String),
    });
    // a buyer's own stats show no sales of its own
    const buyer = newWallet();
    await buy(t, buyer, sold);
    const theirs = (await callAs(t, buyer, 'GET', '/api/v1/seller/stats')).json();
    expect(theirs.items.total).toBe(0);
    expect(theirs.revenue.sales_count).toBe(0);
  });
});

describe('payouts', () => {
  it('shows pending balances per chain with the allocation and the recipe; the job forwards floor shares', async () => {
    await runPayouts(deps()); // forward what earlier tests left, so the platform's figure is ours
    const seller = newWallet();
    const item = await activeListing(t, seller, { prices: { USDC: 2.000001 } });
    await buy(t, newWallet(), item, 'base');
    await buy(t, newWallet(), item, 'base');
    await buy(t, newWallet(), item, 'polygon');

    const before = await payouts(seller);
    expect(before.payout_history).toEqual([]);
    const base = before.payouts.find((p) => p.chain === 'base')!;
    const baseAddress = await payoutAddress(seller, 'base');
    // balance 4000002, less the dust of 1: 4000001 pending gross; the seller's share floored
    expect(base).toEqual({
      chain: 'base',
      settlement_network: 'eip155:8453',
      currency: 'USDC',
      payout_address: getAddress(baseAddress),
      token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      decimals: 6,
      pending_gross_raw: '4000001',
      pending_raw: floorShare(4_000_001n, 9333n).toString(),
      pending: '3.7332',
      allocation: { seller: 9333, platform: 667, total: 10000 },
      status: 'ok',
      payout_now: {
        contract: getAddress(baseAddress),
        method: 'distribute',
        signature: 'distribute(address,uint256,address)',
        args: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', '0', '<your_address>'],
      },
    });
    expect(base.pending).toBe((Number(base.pending_raw) / 1e6).toFixed(6).replace(/0+$/, ''));
    const polygon = before.payouts.find((p) => p.chain === 'polygon')!;
    expect(polygon).toMatchObject({ pending_gross_raw: '2000000', status: 'ok' });

    const wallet0 = await balance('base', seller.address);
    const platform0 = await balance('base', deps().platformPayTo);
    const report = await runPayouts(deps());
    expect(report.paid).toBeGreaterThanOrEqual(2);
    expect((await balance('base', seller.address)) - wallet0).toBe(floorShare(4_000_001n, 9333n));
    expect((await balance('base', deps().platformPayTo)) - platform0).toBe(
      floorShare(4_000_001n, 667n),
    );
    expect(await balance('base', baseAddress)).toBeLessThanOrEqual(2n);

    const after = await payouts(seller);
    // base kept 2 units: the constant dust and this payout's rounding remainder, which no share
    // can take alone (it joins the gross of the next sales), so nothing is pending
    expect(await balance('base', baseAddress)).toBe(2n);
    expect(after.payouts.map((p) => [p.chain, p.pending_gross_raw, p.pending_raw])).toEqual([
      ['base', '0', '0'],
      ['polygon', '0', '0'],
    ]);
    expect(after.payout_history).toHaveLength(2);
    const baseRow = after.payout_history.find((h) => h.chain === 'base')!;
    expect(baseRow).toEqual({
      chain: 'base',
      currency: 'USDC',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      decimals: 6,
      paid_gross_raw: '4000001',
      paid_raw: base.pending_raw,
      paid: base.pending,
      paid_at: expect.any(String),
    });
  });

  it('over many sales and several runs: paid_raw sums to what the seller received; gross = shares + dust change', async () => {
    const seller = newWallet();
    const prices = [1.000001, 2.345679, 0.333333];
    const items = [];
    for (const p of prices) items.push(await activeListing(t, seller, { prices: { USDC: p } }));
    const chains: Chain[] = ['base', 'polygon'];
    const addresses = Object.fromEntries(
      await Promise.all(chains.map(async (c) => [c, await payoutAddress(seller, c)] as const)),
    ) as Record<Chain, string>;
    // sellers of earlier tests still have pending balances: forward them first
    await runPayouts(deps());
    const startedAt = new Date();
    const start = Object.fromEntries(
      await Promise.all(
        chains.map(async (c) => [
          c,
          {
            seller: await balance(c, seller.address),
            platform: await balance(c, deps().platformPayTo),
          },
        ]),
      ),
    ) as Record<Chain, { seller: bigint; platform: bigint }>;
    const sales: Record<Chain, bigint> = { base: 0n, polygon: 0n };

    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < 3 + round; k++) {
        const i = (round + k) % items.length;
        const chain = chains[(round * 7 + k) % 2]!;
        await buy(t, newWallet(), items[i]!, chain);
        sales[chain] += BigInt(Math.round(prices[i]! * 1e6));
      }
      await runPayouts(deps());
      for (const c of chains) expect(await balance(c, addresses[c])).toBeLessThanOrEqual(2n);
    }

    const { payout_history: history } = await payouts(seller);
    expect(history.length).toBeGreaterThanOrEqual(6);
    for (const c of chains) {
      const rows = history.filter((h) => h.chain === c);
      const paid = rows.reduce((s, h) => s + BigInt(h.paid_raw!), 0n);
      const received = (await balance(c, seller.address)) - start[c].seller;
      const dust = await balance(c, addresses[c]);
      expect(paid).toBe(received);
      // everything buyers paid in went to the seller, the platform, or is the dust left behind
      const [mine] = await deps().sql<{ platform: string }[]>`
        select coalesce(sum(platform_raw), 0)::text as platform from payouts
        where chain = ${c} and payout_address = ${addresses[c].toLowerCase()}`;
      expect(sales[c]).toBe(received + BigInt(mine!.platform) + dust);
      // and the platform received exactly the platform shares the job recorded (all sellers)
      const [all] = await deps().sql<{ platform: string }[]>`
        select coalesce(sum(platform_raw), 0)::text as platform from payouts
        where chain = ${c} and paid_at >= ${startedAt}`;
      expect((await balance(c, deps().platformPayTo)) - start[c].platform).toBe(
        BigInt(all!.platform),
      );
      for (const h of rows) {
        expect(BigInt(h.paid_raw!)).toBe(floorShare(BigInt(h.paid_gross_raw!), 9333n));
      }
    }
    // the last run left nothing the seller is owed; per payout, gross = seller + platform + the
    // remainder that joined the dust (0 or 1 unit)
    // nor anything it cannot be paid: what the address keeps (dust, rounding unit) is not pending
    for (const p of (await payouts(seller)).payouts) {
      expect(p.pending_raw).toBe('0');
      expect(p.pending_gross_raw).toBe('0');
    }
    const rows = await deps().sql<{ gross: string; seller: string; platform: string }[]>`
      select gross_raw::text as gross, seller_raw::text as seller, platform_raw::text as platform
      from payouts where payout_address in (${addresses.base.toLowerCase()}, ${addresses.polygon.toLowerCase()})`;
    for (const r of rows) {
      const remainder = BigInt(r.gross) - BigInt(r.seller) - BigInt(r.platform);
      expect(remainder >= 0n && remainder <= 1n).toBe(true);
    }
  });

  it('two workers at once never forward one balance twice', async () => {
    const seller = newWallet();
    const item = await activeListing(t, seller, { prices: { USDC: 3.333333 } });
    for (let i = 0; i < 3; i++) await buy(t, newWallet(), item, 'base');
    const slow: PayoutRail = {
      balances: (c, a) => deps().payoutRail.balances(c, a),
      distribute: async (c, a) => {
        await new Promise((r) => setTimeout(r, 50));
        return deps().payoutRail.distribute(c, a);
      },
    };
    const wallet0 = await balance('base', seller.address);
    const workerDeps = { ...deps(), payoutRail: slow };
    const reports = await Promise.all([
      runPayouts(workerDeps, crypto.randomUUID()),
      runPayouts(workerDeps, crypto.randomUUID()),
    ]);
    const { payout_history: history } = await payouts(seller);
    expect(history).toHaveLength(1);
    expect(history[0]!.paid_gross_raw).toBe(String(3n * 3_333_333n - 1n));
    expect((await balance('base', seller.address)) - wallet0).toBe(BigInt(history[0]!.paid_raw!));
    expect(reports.reduce((n, r) => n + r.paid, 0)).toBeGreaterThanOrEqual(1);
    // and a third pass finds only dust
    await runPayouts(deps());
    expect((await payouts(seller)).payout_history).toHaveLength(1);
  });

  it('a failing balance reader gives rpc_error with zero amounts and the recipe; the job survives it', async () => {
    const seller = newWallet();
    const item = await activeListing(t, seller);
    await buy(t, newWallet(), item, 'polygon');
    const real = deps().payoutRail;
    try {
      deps().payoutRail = {
        balances: async (chain) => {
          if (chain === 'polygon') throw new Error('ECONNREFUSED');
          throw new PayoutTokenMissing(chain);
        },
        distribute: () => Promise.reject(new Error('unreachable')),
      };
      const res = await payouts(seller);
      const polygon = res.payouts.find((p) => p.chain === 'polygon')!;
      expect(polygon).toMatchObject({
        status: 'rpc_error',
        pending_gross_raw: '0',
        pending_raw: '0',
        pending: '0',
        payout_address: getAddress(await payoutAddress(seller, 'polygon')),
        payout_now: {
          method: 'distribute',
          contract: getAddress(await payoutAddress(seller, 'polygon')),
        },
      });
      expect(res.payouts.find((p) => p.chain === 'base')!.status).toBe('token_missing');
      const report = await runPayouts(deps());
      expect(report.paid).toBe(0);
      expect(report.failed).toBeGreaterThan(0);
    } finally {
      deps().payoutRail = real;
    }
    expect((await payouts(seller)).payouts.find((p) => p.chain === 'polygon')!.status).toBe('ok');
  });

  it('payout_history shows the last 50 payouts, newest first', async () => {
    const seller = newWallet();
    const item = await activeListing(t, seller, { prices: { USDC: 0.1 } });
    await runPayouts(deps());
    for (let i = 0; i < 51; i++) {
      await buy(t, newWallet(), item, 'base');
      await runPayouts(deps());
    }
    const { payout_history: history } = await payouts(seller);
    expect(history).toHaveLength(50);
    const times = history.map((h) => Date.parse(h.paid_at!));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const [all] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from payouts p join agents a on a.id = p.agent_id
      where a.address = ${seller.address.toLowerCase()}`;
    expect(all!.n).toBe(51);
  });

  it('the scheduler runs the payout job every PAYOUT_INTERVAL_SECONDS (default 15 minutes)', () => {
    const task = periodicTasks(deps()).find((p) => p.name === 'payouts');
    expect(task?.everyMs).toBe(900_000);
  });
});
