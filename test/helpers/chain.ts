import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { SmartAccountFactory, TestUSDC } from '../../src/chain/artifacts.js';
import { viemChain } from '../../src/chain/clients.js';
import { startDevChain, type DevChain } from '../../tools/chain/devchain.js';
import { payoutAddressing } from '../../src/chain/payout-address.js';
import { NETWORK_OF, type Chain } from '../../src/wire/chains.js';
import { startListeningTestApp, type ListeningTestContext } from './app.js';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.js';
import { createSaleItem } from './items.js';
import { newWallet, signPayment } from './wallets.js';

export interface ChainTestContext extends ListeningTestContext {
  chain: DevChain;
  platform: Address;
  /** With `proxied`: the switchable RPC pass-throughs the service talks to, per chain. */
  proxies?: Record<Chain, RpcProxy>;
  /** Raw USDC balance on chain. */
  usdcBalance(chain: Chain, address: string): Promise<bigint>;
  /** An active listing whose seller's payout contracts exist on both chains. */
  sellerWithItem(opts?: {
    priceUsdc?: number;
  }): Promise<Awaited<ReturnType<typeof createSaleItem>> & { wallet: LocalAccount }>;
  close(): Promise<void>;
}

/** The chain rail's environment for a devchain. */
export function chainEnv(chain: DevChain, platform: Address): Record<string, string> {
  return {
    PAYMENT_RAIL: 'chain',
    RPC_URL_BASE: chain.rpcUrls.base,
    RPC_URL_POLYGON: chain.rpcUrls.polygon,
    RELAYER_PRIVATE_KEY: chain.relayerKey,
    PAYOUT_FACTORY_ADDRESS: chain.payoutFactory,
    PLATFORM_PAY_TO: platform,
    PAYOUT_SELLER_BPS: '9000',
    PAYOUT_PLATFORM_BPS: '1000',
  };
}

/**
 * Local chains for base and polygon (hardhat as a library, real chain ids) and the real app on a
 * loopback socket with PAYMENT_RAIL=chain: settlement by the in-process chain facilitator,
 * payout contracts from the CREATE2 factory.
 */
export async function startChainTestApp(
  env: Record<string, string> = {},
  opts: {
    proxied?: boolean;
    /** Runs once the chains are up; what it returns is added to the app's environment. */
    beforeApp?: (chain: DevChain) => Promise<Record<string, string>>;
  } = {},
): Promise<ChainTestContext> {
  const chain = await startDevChain();
  const platform = getAddress(newWallet().address);
  let t: ListeningTestContext;
  let proxies: Record<Chain, RpcProxy> | undefined;
  try {
    if (opts.proxied) {
      proxies = {
        base: await startRpcProxy(chain.rpcUrls.base),
        polygon: await startRpcProxy(chain.rpcUrls.polygon),
      };
    }
    t = await startListeningTestApp({
      ...chainEnv(chain, platform),
      ...(proxies && { RPC_URL_BASE: proxies.base.url, RPC_URL_POLYGON: proxies.polygon.url }),
      ...(opts.beforeApp && (await opts.beforeApp(chain))),
      ...env,
    });
  } catch (e) {
    await chain.close();
    throw e;
  }
  const clients = {
    base: createPublicClient({ transport: http(chain.rpcUrls.base, { retryCount: 0 }) }),
    polygon: createPublicClient({ transport: http(chain.rpcUrls.polygon, { retryCount: 0 }) }),
  };
  return {
    ...t,
    chain,
    platform,
    ...(proxies && { proxies }),
    usdcBalance: (c, address) =>
      clients[c].readContract({
        address: chain.usdc[c],
        abi: TestUSDC.abi,
        functionName: 'balanceOf',
        args: [getAddress(address)],
      }),
    async sellerWithItem(opts = {}) {
      const wallet = newWallet();
      const item = await createSaleItem(t.runtime.deps, {
        sellerAddress: wallet.address,
        priceUsdc: opts.priceUsdc ?? 1,
        payouts: payoutAddressing(t.config),
      });
      await t.runtime.deps.chainPayouts!.deployMissing(t.runtime.deps.sql, {
        onDeployed: (id) => t.runtime.deps.saleItems.invalidateSeller(id),
      });
      return { ...item, wallet };
    },
    async close() {
      await t.close();
      if (proxies) await Promise.all(Object.values(proxies).map((p) => p.close()));
      await chain.close();
    },
  };
}

const json = { 'content-type': 'application/json' };

/** One signed purchase (the prompt read from a real 402), sent when the test says. */
export async function signedAcquire(
  base: string,
  buyer: LocalAccount,
  itemId: string,
  chain: Chain,
) {
  const url = `${base}/api/v1/items/${itemId}/acquire`;
  const body = JSON.stringify({ chain, policy_accepted: true, license_accepted: true });
  const prompt = await fetch(url, { method: 'POST', headers: json, body });
  expect(prompt.status).toBe(402);
  const required = JSON.parse(
    Buffer.from(prompt.headers.get('payment-required')!, 'base64').toString('utf8'),
  ) as PaymentRequired;
  const requirement = required.accepts.find(
    (a) => a.network === NETWORK_OF[chain],
  ) as PaymentRequirements;
  const signed = await signPayment(buyer, required, requirement);
  return {
    ...signed,
    requirement,
    send: () =>
      fetch(url, {
        method: 'POST',
        headers: { ...json, 'PAYMENT-SIGNATURE': signed.header },
        body,
      }),
  };
}

/** The CREATE2 address of the minimal smart account of `owner` (salt `salt`) on base. */
export async function predictSmartAccount(
  chain: DevChain,
  owner: Address,
  salt: Hex,
): Promise<Address> {
  return createPublicClient({ transport: http(chain.rpcUrls.base) }).readContract({
    address: chain.accountFactory,
    abi: SmartAccountFactory.abi,
    functionName: 'getAddress',
    args: [owner, salt],
  });
}

/** Deploys that account on base through its factory (anyone may) and returns its address. */
export async function deploySmartAccount(
  chain: DevChain,
  owner: Address,
  salt: Hex,
): Promise<Address> {
  const account = await predictSmartAccount(chain, owner, salt);
  const wallet = createWalletClient({
    account: privateKeyToAccount(chain.deployerKey),
    chain: viemChain('base', chain.rpcUrls.base),
    transport: http(chain.rpcUrls.base, { retryCount: 0 }),
  });
  const pub = createPublicClient({ transport: http(chain.rpcUrls.base) });
  await pub.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: chain.accountFactory,
      abi: SmartAccountFactory.abi,
      functionName: 'createAccount',
      args: [owner, salt],
    }),
  });
  return account;
}
