import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, createWalletClient, getAddress, http, parseSignature } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { TestUSDC } from '../../src/chain/artifacts.js';
import { Relayer, viemChain } from '../../src/chain/clients.js';
import { DEV_RELAYER_KEY } from '../../tools/chain/devchain.js';
import { RpcPayoutRail } from '../../src/chain/payout-rail-rpc.js';
import { payoutTermsOf } from '../../src/chain/payout-address.js';
import { sellerPayouts } from '../../src/domain/payouts/payouts.js';
import { PayoutTokenMissing } from '../../src/domain/payouts/rail.js';
import { reconcileNow } from '../../src/runtime.js';
import { freePort } from '../helpers/app.js';
import { signedAcquire, startChainTestApp, type ChainTestContext } from '../helpers/chain.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Faults of the chain rail on local chains: a relayer without gas, the RPC down, an authorization
 * already used on chain, 20 concurrent buyers against one relayer key (the service killed
 * after broadcast is in onchain-crash.heavy.test.ts).
 */
/**
 * Each test's and hook's bound is a safety net against a hang, not a claim about speed: on two
 * cores at load 15-23 the burst below (330 transactions one after another) and the 20 concurrent
 * buyers took longer than the default 60 s. Nothing here asserts how fast the chain or the service
 * is. (vi.setConfig lasts for this file only.)
 */
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

let t: ChainTestContext;
beforeAll(async () => {
  t = await startChainTestApp({}, { proxied: true });
});
afterAll(() => t?.close());

const relayer = privateKeyToAccount(DEV_RELAYER_KEY).address;
const json = { 'content-type': 'application/json' };

it('a relayer out of gas answers 503 settlement_capacity, charges nothing, and recovers', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const buyer = newWallet();
  await t.chain.fundUsdc('base', buyer.address, 2_000_000n);
  await t.chain.setNativeBalance('base', relayer, 0n);
  try {
    const res = await (await signedAcquire(t.base, buyer, item.itemId, 'base')).send();
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'settlement_capacity', retry_after: 5 });
    expect(await t.usdcBalance('base', buyer.address)).toBe(2_000_000n);
  } finally {
    await t.chain.setNativeBalance('base', relayer, 10n ** 22n);
  }
  const again = await (await signedAcquire(t.base, buyer, item.itemId, 'base')).send();
  expect(again.status).toBe(200);
  expect(await t.usdcBalance('base', buyer.address)).toBe(1_500_000n);
});

it('the RPC down: purchases answer 503 settlement_capacity, payout reads throw, nothing crashes', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const buyer = newWallet();
  await t.chain.fundUsdc('polygon', buyer.address, 1_000_000n);
  const signed = await signedAcquire(t.base, buyer, item.itemId, 'polygon');
  t.proxies!.polygon.down = true;
  try {
    const res = await signed.send();
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'settlement_capacity' });
    await expect(
      t.runtime.deps.chainPayouts!.balances('polygon', [item.seller.address]),
    ).rejects.toThrow();
    // The reconciler and the service keep running.
    await reconcileNow(t.runtime.deps, 0);
    expect((await fetch(`${t.base}/api/v1/health`)).status).toBe(200);
  } finally {
    t.proxies!.polygon.down = false;
  }
  expect(await t.usdcBalance('polygon', buyer.address)).toBe(1_000_000n);
  // Back up: the same authorization (its nonce was released) now settles.
  const res = await signed.send();
  expect(res.status).toBe(200);
  expect(await t.usdcBalance('polygon', buyer.address)).toBe(500_000n);

  // A rail whose RPC is unreachable throws, so the payouts route can report rpc_error.
  const dead = `http://127.0.0.1:${await freePort()}`;
  const rail = new RpcPayoutRail(
    new Relayer(privateKeyToAccount(DEV_RELAYER_KEY), { base: dead }),
    t.runtime.deps.networks,
    payoutTermsOf(t.config),
  );
  await expect(rail.balances('base', [item.seller.address])).rejects.toThrow();
});

it('a token address with no contract on the chain reads token_missing (eth_getCode), not rpc_error', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const { sql, networks } = t.runtime.deps;
  // polygon's USDC configured at an address that holds no contract
  const wrong = {
    ...networks,
    polygon: { ...networks.polygon, asset: getAddress(newWallet().address) },
  };
  const rail = new RpcPayoutRail(
    new Relayer(privateKeyToAccount(DEV_RELAYER_KEY), t.chain.rpcUrls),
    wrong,
    payoutTermsOf(t.config),
  );
  const [payout] = await sql<{ address: string }[]>`
    select address from payout_addresses where agent_id = ${item.seller.id} and chain = 'polygon'`;
  await expect(rail.balances('polygon', [payout!.address])).rejects.toBeInstanceOf(
    PayoutTokenMissing,
  );
  const read = await sellerPayouts({ sql, payoutRail: rail, networks: wrong }, item.seller);
  expect(read.payouts.find((p) => p.chain === 'polygon')).toMatchObject({
    status: 'token_missing',
    pending_raw: '0',
    pending_gross_raw: '0',
  });
  expect(read.payouts.find((p) => p.chain === 'base')).toMatchObject({ status: 'ok' });
});

it('an authorization already used on chain is refused: payment_verification_failed, nonce used', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const buyer = newWallet();
  await t.chain.fundUsdc('base', buyer.address, 1_000_000n);
  const signed = await signedAcquire(t.base, buyer, item.itemId, 'base');
  // Someone submits the buyer's signed authorization on chain directly first.
  const other = newWallet();
  await t.chain.setNativeBalance('base', other.address, 10n ** 18n);
  const transport = http(t.chain.rpcUrls.base, { retryCount: 0 });
  const wallet = createWalletClient({
    account: other,
    chain: viemChain('base', t.chain.rpcUrls.base),
    transport,
  });
  const a = signed.payload.payload.authorization as Record<string, string>;
  const sig = parseSignature(signed.payload.payload.signature as `0x${string}`);
  const hash = await wallet.writeContract({
    address: t.chain.usdc.base,
    abi: TestUSDC.abi,
    functionName: 'transferWithAuthorization',
    args: [
      getAddress(a.from!),
      getAddress(a.to!),
      BigInt(a.value!),
      BigInt(a.validAfter!),
      BigInt(a.validBefore!),
      a.nonce as `0x${string}`,
      Number(sig.v),
      sig.r,
      sig.s,
    ],
  });
  await createPublicClient({ transport }).waitForTransactionReceipt({ hash });
  const res = await signed.send();
  expect(res.status).toBe(402);
  expect(await res.json()).toMatchObject({
    error: 'payment_verification_failed',
    reason: 'invalid_exact_evm_nonce_already_used',
  });
  const orders = await t.runtime.deps.sql`select 1 from orders where item_id = ${item.itemId}`;
  expect(orders).toHaveLength(0);
});

it('20 wallets buy at once: every purchase settles, one relayer key, nonces in order', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.2 });
  const buyers = Array.from({ length: 20 }, () => newWallet());
  for (const b of buyers) await t.chain.fundUsdc('base', b.address, 1_000_000n);
  const started = Date.now();
  const results = await Promise.all(
    buyers.map(async (b) => {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: b });
      const res = await wrapFetchWithPayment(fetch, client)(
        `${t.base}/api/v1/items/${item.itemId}/acquire`,
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true }),
        },
      );
      return { status: res.status, body: await res.text() };
    }),
  );
  const elapsed = Date.now() - started;
  expect(results.filter((r) => r.status !== 200)).toEqual([]);
  const orders = await t.runtime.deps.sql<{ transaction: string; payTo: string }[]>`
    select transaction, pay_to from orders where item_id = ${item.itemId}`;
  expect(orders).toHaveLength(20);
  expect(new Set(orders.map((o) => o.transaction)).size).toBe(20);
  expect(await t.usdcBalance('base', orders[0]!.payTo)).toBe(20n * 200_000n);
  console.log(`20 concurrent on-chain purchases in ${elapsed} ms`);
});

it('after a burst of transactions (more than the 300 s window, one block each) a purchase signed now still settles: the chain’s clock is the wall clock', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.1 });
  const buyer = newWallet();
  await t.chain.fundUsdc('base', buyer.address, 1_000_000n);
  // Automine: one block per transaction, a few milliseconds apart.
  const window = t.config.X402_MAX_TIMEOUT_SECONDS;
  for (let i = 0; i < window + 30; i++) {
    await t.chain.fundUsdc('base', newWallet().address, 1n);
  }
  const res = await (await signedAcquire(t.base, buyer, item.itemId, 'base')).send();
  expect({ status: res.status, body: res.status === 200 ? {} : await res.json() }).toEqual({
    status: 200,
    body: {},
  });
  expect(await t.usdcBalance('base', buyer.address)).toBe(900_000n);
  const pub = createPublicClient({ transport: http(t.chain.rpcUrls.base, { retryCount: 0 }) });
  const ahead = Number((await pub.getBlock()).timestamp) - Math.floor(Date.now() / 1000);
  expect(ahead).toBeLessThanOrEqual(2);
});
