import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, getAddress, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PayoutSplitter } from '../../src/chain/artifacts.js';
import { CHAINS, NETWORK_OF, type Chain } from '../../src/domain/chains.js';
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
  const { payoutAddressing } = await import('../../src/domain/accounts/accounts.js');
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

it('payouts over RPC: balances in one batch, distribute from the relayer, dust at most 2 units, seller paid exactly', async () => {
  const rail = t.runtime.deps.chainPayouts!;
  // 0.333333 USDC: 90 % and 10 % of it do not divide evenly, so rounding dust appears.
  const item = await t.sellerWithItem({ priceUsdc: 0.333333 });
  const buyer = newWallet();
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  const pay = wrapFetchWithPayment(fetch, client);
  for (const chain of CHAINS) await t.chain.fundUsdc(chain, buyer.address, 5_000_000n);
  for (const chain of CHAINS) {
    for (let i = 0; i < 2; i++) {
      const res = await pay(`${t.base}/api/v1/items/${item.itemId}/acquire`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chain, policy_accepted: true, license_accepted: true }),
      });
      expect(res.status).toBe(200);
    }
  }
  let sellerReceived = 0n;
  let sellerShares = 0n;
  for (const chain of CHAINS) {
    const payout = (await payoutAddressOf(item.seller.id, chain)).address;
    const balances = await rail.balances(chain, [payout, t.platform]);
    expect(balances.get(payout.toLowerCase())).toBe(666_666n);
    expect(balances.get(t.platform.toLowerCase())).toBe(0n);

    const before = await t.usdcBalance(chain, item.seller.address);
    const paid = await rail.distribute(chain, payout);
    expect(paid).toMatchObject({ grossRaw: 666_666n, sellerRaw: 599_999n, platformRaw: 66_666n });
    const pub = createPublicClient({ transport: http(t.chain.rpcUrls[chain]) });
    const tx = await pub.getTransactionReceipt({ hash: paid.txHash as `0x${string}` });
    expect(tx.status).toBe('success');
    const dust = await t.usdcBalance(chain, payout);
    expect(dust).toBe(1n);
    expect(dust).toBeLessThanOrEqual(2n);
    expect(await t.usdcBalance(chain, t.platform)).toBe(66_666n);
    sellerReceived += (await t.usdcBalance(chain, item.seller.address)) - before;
    sellerShares += paid.sellerRaw;

    // A second payout forwards the dust with the next sales, and the dust stays at most 2 units.
    const again = await rail.distribute(chain, payout);
    expect(again.grossRaw).toBe(1n);
    expect(await t.usdcBalance(chain, payout)).toBeLessThanOrEqual(2n);
    sellerShares += again.sellerRaw;
    sellerReceived += again.sellerRaw;
  }
  expect(sellerReceived).toBe(sellerShares);
  expect(sellerReceived).toBe(2n * 599_999n);
});

it('the payout_now recipe, sent by a stranger: the seller is paid, the stranger gains nothing and cannot redirect', async () => {
  const { payoutNowRecipe } = await import('../../src/chain/payout-rail-rpc.js');
  const { createWalletClient } = await import('viem');
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

  const payout = (await payoutAddressOf(item.seller.id, 'base')).address;
  const recipe = payoutNowRecipe(payout, t.chain.usdc.base, item.seller.address);
  expect(recipe.method).toBe('distribute');
  const stranger = newWallet();
  await t.chain.setNativeBalance('base', stranger.address, 10n ** 18n);
  const transport = http(t.chain.rpcUrls.base, { retryCount: 0 });
  const { viemChain } = await import('../../src/chain/clients.js');
  const wallet = createWalletClient({
    account: stranger,
    chain: viemChain('base', t.chain.rpcUrls.base),
    transport,
  });
  const pub = createPublicClient({ transport });
  const send = (args: readonly [string, string, string]) =>
    wallet.writeContract({
      address: recipe.contract,
      abi: PayoutSplitter.abi,
      functionName: 'distribute',
      args: args.map((a) => getAddress(a)) as unknown as readonly [
        `0x${string}`,
        `0x${string}`,
        `0x${string}`,
      ],
    });
  // Naming themselves as payee, or another sender, reverts: funds cannot be redirected.
  await expect(send([recipe.args[0]!, stranger.address, stranger.address])).rejects.toThrow(
    /payee is not the seller/,
  );
  await expect(send([recipe.args[0]!, recipe.args[1]!, item.seller.address])).rejects.toThrow(
    /caller is not the sender/,
  );
  const args = [recipe.args[0]!, recipe.args[1]!, stranger.address] as const; // args[2] := own address
  const hash = await send(args);
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
  expect(await t.usdcBalance('base', item.seller.address)).toBe(450_000n);
  expect(await t.usdcBalance('base', stranger.address)).toBe(0n);
  expect(await t.usdcBalance('base', payout)).toBe(0n);
});
