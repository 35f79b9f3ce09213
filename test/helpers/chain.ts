import { createPublicClient, getAddress, http, type Address } from 'viem';
import { TestUSDC } from '../../src/chain/artifacts.js';
import { startDevChain, type DevChain } from '../../src/chain/devchain.js';
import { payoutAddressing } from '../../src/domain/accounts/accounts.js';
import type { Chain } from '../../src/domain/chains.js';
import { startListeningTestApp, type ListeningTestContext } from './app.js';
import { createSaleItem } from './items.js';
import { newWallet } from './wallets.js';

export interface ChainTestContext extends ListeningTestContext {
  chain: DevChain;
  platform: Address;
  /** Raw USDC balance on chain. */
  usdcBalance(chain: Chain, address: string): Promise<bigint>;
  /** An active listing whose seller's payout contracts exist on both chains. */
  sellerWithItem(opts?: {
    priceUsdc?: number;
  }): Promise<Awaited<ReturnType<typeof createSaleItem>>>;
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
): Promise<ChainTestContext> {
  const chain = await startDevChain();
  const platform = getAddress(newWallet().address);
  let t: ListeningTestContext;
  try {
    t = await startListeningTestApp({ ...chainEnv(chain, platform), ...env });
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
    usdcBalance: (c, address) =>
      clients[c].readContract({
        address: chain.usdc[c],
        abi: TestUSDC.abi,
        functionName: 'balanceOf',
        args: [getAddress(address)],
      }),
    async sellerWithItem(opts = {}) {
      const item = await createSaleItem(t.runtime.deps, {
        priceUsdc: opts.priceUsdc ?? 1,
        payouts: payoutAddressing(t.config),
      });
      await t.runtime.deps.chainPayouts!.deployMissing(t.runtime.deps.sql, {
        onDeployed: (id) => t.runtime.deps.saleItems.invalidateSeller(id),
      });
      return item;
    },
    async close() {
      await t.close();
      await chain.close();
    },
  };
}
