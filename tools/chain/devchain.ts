/**
 * Local EVM chains for both supported networks, from the npm registry: hardhat 3.9.1 used as a
 * library (a devDependency; nothing is written to the project or $HOME), one JSON-RPC server per
 * chain on loopback with the real chain ids (8453 base, 137 polygon), so CAIP-2 networks, EIP-712
 * domains and prompts are the production ones. On each chain:
 *
 * - the test USDC (EIP-3009) is placed at the canonical USDC address (its runtime code and its
 *   owner slot), so clients with default spend controls treat it as USDC;
 * - Multicall3 at its canonical address (viem batching, the x402 facilitator's diagnostics);
 * - the payout factory, deployed by the deployer's first transaction: the same address on both.
 *
 * The deployer (hardhat's public account #0) owns the token and funds wallets (the faucet); the
 * relayer (public account #1) pays gas for settlements and payouts. Both keys are hardhat's
 * published development keys and guard nothing.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  http,
  pad,
  parseEther,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CHAIN_ID_OF, CHAINS, type Chain } from '../../src/wire/chains.js';
import { MULTICALL3_ADDRESS, viemChain } from '../../src/chain/clients.js';
import {
  Multicall3,
  PayoutFactory,
  SmartAccountFactory,
  TestUSDC,
} from '../../src/chain/artifacts.js';

/** Hardhat's published development accounts #0 and #1 (public test keys, never real money). */
export const DEV_DEPLOYER_KEY: Hex =
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const DEV_RELAYER_KEY: Hex =
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export const CANONICAL_USDC: Record<Chain, Address> = {
  base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  polygon: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
};

const deployer = privateKeyToAccount(DEV_DEPLOYER_KEY);
/** The payout factory: the deployer's first contract, so the same address on every devchain. */
export const DEV_PAYOUT_FACTORY: Address = getContractAddress({
  from: deployer.address,
  nonce: 0n,
});
/** A smart-account factory (tests of ERC-1271 / ERC-6492 payers): the deployer's second contract. */
export const DEV_ACCOUNT_FACTORY: Address = getContractAddress({
  from: deployer.address,
  nonce: 1n,
});

export interface DevChainOptions {
  chains?: readonly Chain[];
  host?: string;
  /** Port per chain; 0 or absent picks a free one. */
  ports?: Partial<Record<Chain, number>>;
  /** Native balance of the deployer and relayer (ETH / POL). */
  nativeBalance?: bigint;
}

export interface DevChain {
  rpcUrls: Record<Chain, string>;
  chains: readonly Chain[];
  usdc: Record<Chain, Address>;
  payoutFactory: Address;
  accountFactory: Address;
  deployerKey: Hex;
  relayerKey: Hex;
  /** Mints test USDC (base units) to `to` on `chain`. */
  fundUsdc(chain: Chain, to: Address, amountMicro: bigint): Promise<Hex>;
  /** Sets the native balance of `address` (gas). */
  setNativeBalance(chain: Chain, address: Address, wei: bigint): Promise<void>;
  close(): Promise<void>;
}

export async function startDevChain(opts: DevChainOptions = {}): Promise<DevChain> {
  const chains = opts.chains ?? CHAINS;
  const host = opts.host ?? '127.0.0.1';
  const balance = opts.nativeBalance ?? parseEther('10000');
  // hardhat is a devDependency: imported only when a local chain is wanted.
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre');
  const networks = Object.fromEntries(
    chains.map((chain) => [
      chain,
      {
        type: 'edr-simulated' as const,
        chainId: CHAIN_ID_OF[chain],
        chainType: chain === 'base' ? ('op' as const) : ('generic' as const),
        // Automine makes a block per transaction; without this each block in the same second
        // gets the previous timestamp + 1, so the chain's clock runs ahead of the wall clock by
        // one second per extra transaction (300 settlements in 10 s put it ~290 s ahead) and
        // EIP-3009 authorizations signed with a wall-clock validBefore revert as expired.
        allowBlocksWithSameTimestamp: true,
        accounts: [DEV_DEPLOYER_KEY, DEV_RELAYER_KEY].map((privateKey) => ({
          privateKey,
          balance: balance.toString(),
        })),
      },
    ]),
  );
  const hre = await createHardhatRuntimeEnvironment({ networks });
  const servers: Array<{ close(): Promise<void> }> = [];
  const rpcUrls = {} as Record<Chain, string>;
  try {
    for (const chain of chains) {
      const server = await hre.network.createServer(chain, host, opts.ports?.[chain] ?? 0);
      servers.push(server);
      const { address, port } = await server.listen();
      rpcUrls[chain] = `http://${address}:${port}`;
      await placeContracts(chain, rpcUrls[chain]);
    }
  } catch (e) {
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
    throw e;
  }
  const clients = (chain: Chain) => {
    const transport = http(rpcUrls[chain], { retryCount: 0 });
    const c = viemChain(chain, rpcUrls[chain]);
    return {
      pub: createPublicClient({ chain: c, transport }),
      test: createTestClient({ chain: c, transport, mode: 'hardhat' }),
      wallet: createWalletClient({ chain: c, transport, account: deployer }),
    };
  };
  return {
    rpcUrls,
    chains,
    usdc: CANONICAL_USDC,
    payoutFactory: DEV_PAYOUT_FACTORY,
    accountFactory: DEV_ACCOUNT_FACTORY,
    deployerKey: DEV_DEPLOYER_KEY,
    relayerKey: DEV_RELAYER_KEY,
    async fundUsdc(chain, to, amountMicro) {
      const { pub, wallet } = clients(chain);
      const hash = await wallet.writeContract({
        address: CANONICAL_USDC[chain],
        abi: TestUSDC.abi,
        functionName: 'mint',
        args: [getAddress(to), amountMicro],
      });
      await pub.waitForTransactionReceipt({ hash });
      return hash;
    },
    async setNativeBalance(chain, address, wei) {
      await clients(chain).test.setBalance({ address, value: wei });
    },
    async close() {
      await Promise.all(servers.map((s) => s.close().catch(() => {})));
    },
  };
}

/** Token and Multicall3 at their canonical addresses, then the factories by real deployments. */
async function placeContracts(chain: Chain, url: string): Promise<void> {
  const transport = http(url, { retryCount: 0 });
  const c = viemChain(chain, url);
  const test = createTestClient({ chain: c, transport, mode: 'hardhat' });
  const pub = createPublicClient({ chain: c, transport });
  const wallet = createWalletClient({ chain: c, transport, account: deployer });
  await test.setCode({ address: CANONICAL_USDC[chain], bytecode: TestUSDC.deployedBytecode });
  await test.setStorageAt({
    address: CANONICAL_USDC[chain],
    index: 0,
    value: pad(deployer.address),
  });
  await test.setCode({ address: MULTICALL3_ADDRESS, bytecode: Multicall3.deployedBytecode });
  for (const [artifact, expected] of [
    [PayoutFactory, DEV_PAYOUT_FACTORY],
    [SmartAccountFactory, DEV_ACCOUNT_FACTORY],
  ] as const) {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (receipt.contractAddress?.toLowerCase() !== expected.toLowerCase()) {
      throw new Error(
        `devchain ${chain}: factory landed at ${receipt.contractAddress}, not ${expected}`,
      );
    }
  }
}
