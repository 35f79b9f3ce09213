import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, getAddress, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PayoutSplitter } from '../../src/chain/artifacts.js';
import { CHAINS, NETWORK_OF, type Chain } from '../../src/wire/chains.js';
import { runPayouts } from '../../src/domain/payouts/payout-job.js';
import { startChainTestApp, type ChainTestContext } from '../helpers/chain.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Money on a real (local) chain: hardhat's EVM for base (8453) and polygon (137), the test USDC at
 * the canonical address, payout contracts from the CREATE2 factory, the in-process chain
 * facilitator (the official @x402/evm scheme) and the official @x402/fetch client.
 */
let t: ChainTestContext;
beforeAll(async () => {
  t = await startChainTestApp();
});
afterAll(() => t?.close());

const payoutAddressOf = async (sellerId: string, chain: Chain) =>
  (
    await t.runtime.deps.sql<{ address: string; deployedAt: Date | null }[]>`
      select address, deployed_at from payout_addresses where agent_id = ${sellerId} and chain = ${chain}`
  )[0]!;

it('a chain is payable only once the seller’s payout contract exists there', async () => {
  const { createSaleItem } = await import('../helpers/items.js');
  const { payoutAddressing } = await import('../../src/chain/payout-address.js');
  const item = await createSaleItem(t.runtime.deps, { payouts: payoutAddressing(t.config) });
  const before = await fetch(`${t.base}/api/v1/items/${item.itemId}`);
  expect(((await before.json()) as { available_chains: string[] }).available_chains).toEqual([]);
  const { deployed } = await t.runtime.deps.chainPayouts!.deployMissing(t.runtime.deps.sql, {
    onDeployed: (id) => t.runtime.deps.saleItems.invalidateSeller(id),
  });
  expect(deployed).toBeGreaterThanOrEqual(2);
  for (const chain of CHAINS) {
    const p = await payoutAddressOf(item.seller.id, chain);
    expect(p.deployedAt).not.toBeNull();
    const pub = createPublicClient({ transport: http(t.chain.rpcUrls[chain]) });
    // The contract at the address assigned at provisioning holds the fixed terms.
    expect(
      await pub.readContract({
        address: getAddress(p.address),
        abi: PayoutSplitter.abi,
        functionName: 'seller',
      }),
    ).toBe(getAddress(item.seller.address));
    expect(
      await pub.readContract({
        address: getAddress(p.address),
        abi: PayoutSplitter.abi,
        functionName: 'platformBps',
      }),
    ).toBe(1000);
  }
  const after = await fetch(`${t.base}/api/v1/items/${item.itemId}`);
  expect(((await after.json()) as { available_chains: string[] }).available_chains).toEqual([
    'base',
    'polygon',
  ]);
});

it('@x402/fetch buys on base and on polygon: USDC moves on chain to the payout contracts', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.75 });
  const buyer = newWallet();
  for (const chain of CHAINS) await t.chain.fundUsdc(chain, buyer.address, 10_000_000n);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  const pay = wrapFetchWithPayment(fetch, client);

  for (const chain of CHAINS) {
    const payout = await payoutAddressOf(item.seller.id, chain);
    const res = await pay(`${t.base}/api/v1/items/${item.itemId}/acquire`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chain, policy_accepted: true, license_accepted: true }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
    expect(receipt).toMatchObject({ success: true, network: NETWORK_OF[chain] });
    // A real transaction on that chain: mined, successful, sent by the relayer.
    const pub = createPublicClient({ transport: http(t.chain.rpcUrls[chain]) });
    const tx = await pub.getTransactionReceipt({ hash: receipt.transaction as `0x${string}` });
    expect(tx.status).toBe('success');
    expect(await t.usdcBalance(chain, buyer.address)).toBe(10_000_000n - 750_000n);
    expect(await t.usdcBalance(chain, payout.address)).toBe(750_000n);
    const [order] = await t.runtime.deps.sql<{ transaction: string; payTo: string }[]>`
      select transaction, pay_to from orders where item_id = ${item.itemId} and chain = ${chain}`;
    expect(order).toEqual({ transaction: receipt.transaction, payTo: getAddress(payout.address) });
  }
});

it('seller payouts read from the chain, forwarded by the payout job with real transactions; dust <= 2 units; paid_raw sums to what the seller received', async () => {
  // 0.333333 USDC: 90 % and 10 % of it do not divide evenly, so rounding dust appears.
  const item = await t.sellerWithItem({ priceUsdc: 0.333333 });
  const buyer = newWallet();
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  const pay = wrapFetchWithPayment(fetch, client);
  for (const chain of CHAINS) await t.chain.fundUsdc(chain, buyer.address, 5_000_000n);
  const buy = async (chain: Chain) => {
    const res = await pay(`${t.base}/api/v1/items/${item.itemId}/acquire`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chain, policy_accepted: true, license_accepted: true }),
    });
    expect(res.status).toBe(200);
  };
  for (const chain of CHAINS) for (let i = 0; i < 2; i++) await buy(chain);

  const sellerClient = new x402Client();
  registerExactEvmScheme(sellerClient, { signer: item.wallet });
  const asSeller = wrapFetchWithPayment(fetch, sellerClient);
  const readPayouts = async () => {
    const res = await asSeller(`${t.base}/api/v1/seller/payouts`);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      payouts: Array<
        Record<string, unknown> & {
          chain: Chain;
          payout_now: { contract: string; method: string; args: string[] };
        }
      >;
      payout_history: Array<{
        chain: Chain;
        tx_hash: string;
        paid_raw: string;
        paid_gross_raw: string;
      }>;
    };
  };
  const before = await readPayouts();
  for (const chain of CHAINS) {
    const entry = before.payouts.find((p) => p.chain === chain)!;
    const payout = (await payoutAddressOf(item.seller.id, chain)).address;
    // Read from the contract's balance on chain (666,666 raw) less the constant dust of 1.
    expect(await t.usdcBalance(chain, payout)).toBe(666_666n);
    expect(entry).toMatchObject({
      status: 'ok',
      payout_address: getAddress(payout),
      token_address: t.chain.usdc[chain],
      pending_gross_raw: '666665',
      pending_raw: '599998',
      allocation: { seller: 9000, platform: 1000, total: 10000 },
    });
    expect(entry.payout_now).toMatchObject({ contract: getAddress(payout), method: 'distribute' });
  }
  expect(before.payout_history).toEqual([]);

  const sellerStart = await Promise.all(CHAINS.map((c) => t.usdcBalance(c, item.seller.address)));
  const first = await runPayouts(t.runtime.deps);
  expect(first.paid).toBeGreaterThanOrEqual(2);
  // More sales, another pass: the remainder of the first payout goes out with them.
  await buy('base');
  await runPayouts(t.runtime.deps);

  const after = await readPayouts();
  const pub = (chain: Chain) => createPublicClient({ transport: http(t.chain.rpcUrls[chain]) });
  for (const chain of CHAINS) {
    const payout = getAddress((await payoutAddressOf(item.seller.id, chain)).address);
    const dust = await t.usdcBalance(chain, payout);
    // 0.333333 × 2 and × 1 at 90 / 10 % leave a rounding unit beside the dust on both chains
    expect(dust).toBe(2n);
    // What remains is what the contract keeps (its own view says nothing can move): nothing is
    // pending, not the lone unit no share can take.
    const [, sellerNow, platformNow] = await pub(chain).readContract({
      address: payout,
      abi: PayoutSplitter.abi,
      functionName: 'pending',
      args: [t.chain.usdc[chain]],
    });
    expect(sellerNow + platformNow).toBe(0n);
    const entry = after.payouts.find((p) => p.chain === chain)!;
    expect(entry.pending_gross_raw).toBe('0');
    expect(entry.pending_raw).toBe('0');
  }
  for (const h of after.payout_history) {
    const receipt = await pub(h.chain).getTransactionReceipt({ hash: h.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
  }
  expect(after.payout_history.length).toBe(3);
  const received = await Promise.all(
    CHAINS.map(async (c, i) => (await t.usdcBalance(c, item.seller.address)) - sellerStart[i]!),
  );
  const paidRaw = after.payout_history.reduce((n, h) => n + BigInt(h.paid_raw), 0n);
  expect(paidRaw).toBe(received[0]! + received[1]!);
  expect(paidRaw).toBeGreaterThan(0n);
});

it('the payout_now recipe, sent by a stranger: the seller is paid, the stranger gains nothing and cannot redirect', async () => {
  const { createWalletClient } = await import('viem');
  const { viemChain } = await import('../../src/chain/clients.js');
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const buyer = newWallet();
  await t.chain.fundUsdc('base', buyer.address, 1_000_000n);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  const res = await wrapFetchWithPayment(fetch, client)(
    `${t.base}/api/v1/items/${item.itemId}/acquire`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true }),
    },
  );
  expect(res.status).toBe(200);

  const sellerClient = new x402Client();
  registerExactEvmScheme(sellerClient, { signer: item.wallet });
  const payoutsRes = await wrapFetchWithPayment(
    fetch,
    sellerClient,
  )(`${t.base}/api/v1/seller/payouts`);
  const { payouts } = (await payoutsRes.json()) as {
    payouts: Array<{
      chain: Chain;
      payout_now: { contract: `0x${string}`; method: string; args: string[] };
    }>;
  };
  const recipe = payouts.find((p) => p.chain === 'base')!.payout_now;
  expect(recipe.method).toBe('distribute');
  const stranger = newWallet();
  await t.chain.setNativeBalance('base', stranger.address, 10n ** 18n);
  const transport = http(t.chain.rpcUrls.base, { retryCount: 0 });
  const wallet = createWalletClient({
    account: stranger,
    chain: viemChain('base', t.chain.rpcUrls.base),
    transport,
  });
  const pub = createPublicClient({ transport });
  const send = (min: bigint) =>
    wallet.writeContract({
      address: recipe.contract,
      abi: PayoutSplitter.abi,
      functionName: recipe.method as 'distribute',
      // args[0] exactly as given; args[2] := the sender's own address
      args: [getAddress(recipe.args[0]!), min, stranger.address],
    });
  // Asking for more than is pending reverts; nothing moves.
  await expect(send(10_000_000n)).rejects.toThrow(/less than minGrossRaw/);
  const hash = await send(BigInt(recipe.args[1]!));
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
  // The seller and the platform received their floor shares of 499,999; the sender nothing.
  expect(await t.usdcBalance('base', item.seller.address)).toBe(449_999n);
  expect(await t.usdcBalance('base', t.platform)).toBeGreaterThanOrEqual(49_999n);
  expect(await t.usdcBalance('base', stranger.address)).toBe(0n);
  expect(await t.usdcBalance('base', recipe.contract)).toBeLessThanOrEqual(2n);
});
