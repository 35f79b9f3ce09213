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
