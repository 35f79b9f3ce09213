/**
 * Chain commands (hardhat and solc are devDependencies: these are for development and tests).
 *
 *   npm run devchain                 local chains for base (8453) and polygon (137) on loopback
 *   npm run devchain -- --serve      the same, plus the whole service on them (PAYMENT_RAIL=chain)
 *   npm run faucet -- <address> [usdc] [--chain base|polygon] [--gas]
 *   npm run facilitator              a standalone x402 facilitator server settling on chain
 */
import { parseEther, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadConfig } from '../../src/config.js';
import { CHAINS, ChainSchema, type Chain } from '../../src/wire/chains.js';
import { toUsdc } from '../../src/wire/money.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { paymentNetworks } from '../../src/x402/networks.js';
import { ChainFacilitator } from '../../src/chain/chain-facilitator.js';
import { chainClients, Relayer } from '../../src/chain/clients.js';
import { TestUSDC } from '../../src/chain/artifacts.js';
import { CANONICAL_USDC, DEV_DEPLOYER_KEY, DEV_RELAYER_KEY, startDevChain } from './devchain.js';
import { buildFacilitatorServer } from './facilitator-server.js';

const DEFAULT_PORTS: Record<Chain, number> = { base: 8545, polygon: 8546 };
/** Hardhat's public development account #2: the devchain platform treasury. */
const DEV_PLATFORM: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function devRpcUrl(chain: Chain): string {
  const env = chain === 'base' ? process.env.RPC_URL_BASE : process.env.RPC_URL_POLYGON;
  return env ?? `http://127.0.0.1:${DEFAULT_PORTS[chain]}`;
}

async function devchain(args: string[]): Promise<void> {
  const ports = {
    base: Number(flag(args, '--base-port') ?? DEFAULT_PORTS.base),
    polygon: Number(flag(args, '--polygon-port') ?? DEFAULT_PORTS.polygon),
  };
  const chain = await startDevChain({ ports });
  const env: Record<string, string> = {
    PAYMENT_RAIL: 'chain',
    RPC_URL_BASE: chain.rpcUrls.base,
    RPC_URL_POLYGON: chain.rpcUrls.polygon,
    RELAYER_PRIVATE_KEY: chain.relayerKey,
    PAYOUT_FACTORY_ADDRESS: chain.payoutFactory,
    PLATFORM_PAY_TO: DEV_PLATFORM,
  };
  const lines = [
    `devchain: base ${chain.rpcUrls.base} (chain id 8453), polygon ${chain.rpcUrls.polygon} (chain id 137)`,
    `  test USDC at ${CANONICAL_USDC.base} (base) and ${CANONICAL_USDC.polygon} (polygon)`,
    `  Multicall3 at 0xcA11bde05977b3631167028862bE2a173976CA11, payout factory at ${chain.payoutFactory}`,
    '  fund a wallet:  npm run faucet -- <address> [usdc]',
    '  the service on these chains (in another shell, or use `npm run devchain -- --serve`):',
    `  ${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')} EMBEDDED_DB_IN_MEMORY=true npm run demo`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
  const stops: Array<() => Promise<void>> = [() => chain.close()];
  if (args.includes('--serve')) stops.unshift(await serveOnChain(env));
  const shutdown = async () => {
    for (const stop of stops) await stop().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

/** The whole service on the devchain: demo listings, their payout contracts deployed at once. */
async function serveOnChain(chainEnv: Record<string, string>): Promise<() => Promise<void>> {
  const { createRuntime, startBackground } = await import('../../src/runtime.js');
  const { loadDemoData } = await import('../../src/domain/discovery/demo.js');
  // The chains live in memory; so does the database, so the two never disagree after a restart.
  const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', ...process.env, ...chainEnv });
  const logger = createLogger(config);
  const runtime = await createRuntime(config, { logger });
  await loadDemoData(runtime.deps);
  const deployed = await runtime.deps.chainPayouts!.deployMissing(runtime.deps.sql);
  logger.info({ deployed: deployed.deployed }, 'demo sellers’ payout contracts deployed');
  const app = await buildApp(config, runtime.deps);
  const stopBackground = startBackground(runtime.deps);
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ url: config.PUBLIC_BASE_URL }, 'marketplace listening on the devchain');
  return async () => {
    await app.close();
    await stopBackground();
    await runtime.close();
  };
}

async function faucet(args: string[]): Promise<void> {
  const [to, amount = '100'] = args.filter(
    (a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'),
  );
  if (!to || !/^0x[0-9a-fA-F]{40}$/.test(to)) {
    throw new Error(
      'usage: npm run faucet -- <0x address> [usdc=100] [--chain base|polygon] [--gas]',
    );
  }
  const only = flag(args, '--chain');
  const chains = only ? [ChainSchema.parse(only)] : [...CHAINS];
  const deployer = privateKeyToAccount(DEV_DEPLOYER_KEY);
  for (const chain of chains) {
    const c = chainClients(chain, devRpcUrl(chain), deployer);
    const hash = await c.wallet.writeContract({
      address: CANONICAL_USDC[chain],
      abi: TestUSDC.abi,
      functionName: 'mint',
      args: [to as Address, parseUnits(amount, 6)],
    });
    await c.public.waitForTransactionReceipt({ hash });
    if (args.includes('--gas')) {
      const gas = await c.wallet.sendTransaction({ to: to as Address, value: parseEther('1') });
      await c.public.waitForTransactionReceipt({ hash: gas });
    }
    const balance = await c.public.readContract({
      address: CANONICAL_USDC[chain],
      abi: TestUSDC.abi,
      functionName: 'balanceOf',
      args: [to as Address],
    });
    process.stdout.write(
      `${chain}: minted ${amount} USDC to ${to} (tx ${hash}); balance ${toUsdc(balance)} USDC\n`,
    );
  }
}

async function facilitator(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  const key = config.RELAYER_PRIVATE_KEY ?? DEV_RELAYER_KEY;
  if (!config.RELAYER_PRIVATE_KEY)
    logger.warn('RELAYER_PRIVATE_KEY unset: using the devchain relayer');
  const relayer = new Relayer(privateKeyToAccount(key as `0x${string}`), {
    base: config.RPC_URL_BASE ?? devRpcUrl('base'),
    polygon: config.RPC_URL_POLYGON ?? devRpcUrl('polygon'),
  });
  const chainFacilitator = new ChainFacilitator({
    networks: paymentNetworks(config),
    relayer,
    confirmationTimeoutMs: config.CHAIN_CONFIRMATION_TIMEOUT_MS,
    eip6492AllowedFactories: config.EIP6492_ALLOWED_FACTORIES,
  });
  // the discovery API browses the marketplace at PUBLIC_BASE_URL (same environment)
  const app = buildFacilitatorServer(chainFacilitator, {
    logger,
    catalogueUrl: config.PUBLIC_BASE_URL,
  });
  await app.listen({ port: config.FACILITATOR_PORT, host: config.HOST });
  logger.info(
    { port: config.FACILITATOR_PORT, relayer: relayer.address },
    'x402 facilitator listening',
  );
  const shutdown = async () => {
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

const [command, ...rest] = process.argv.slice(2);
const commands: Record<string, (args: string[]) => Promise<void>> = {
  devchain,
  faucet,
  facilitator,
};
const run = command ? commands[command] : undefined;
if (!run) {
  console.error(
    'usage: tsx tools/chain/cli.ts devchain [--serve] | faucet <address> [usdc] | facilitator',
  );
  process.exit(1);
}
run(rest).catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
