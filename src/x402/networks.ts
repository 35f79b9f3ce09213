import { createPublicClient, getAddress, http, type Address, type PublicClient } from 'viem';
import type { Config } from '../config.js';
import { CHAIN_ID_OF, CHAINS, NETWORK_OF, type Chain } from '../wire/chains.js';
import { SmartAccountVerifier } from './smart-accounts.js';

/** Everything the x402 layer needs to know about one supported chain: network id, USDC and RPC. */
export interface PaymentNetwork {
  chain: Chain;
  /** CAIP-2 id, e.g. `eip155:8453`. */
  network: `eip155:${number}`;
  chainId: number;
  /** USDC contract (EIP-3009), checksummed. */
  asset: Address;
  /** The token's EIP-712 domain, advertised as `extra: { name, version }`. */
  eip712: { name: string; version: string };
  /** Present when an RPC URL is configured: chain reads (receipts, authorization state). */
  rpc?: PublicClient;
  /** Present when an RPC URL is configured: bounded smart-account signature checks. */
  signatures?: SmartAccountVerifier;
}

export type PaymentNetworks = Record<Chain, PaymentNetwork>;

export function paymentNetworks(config: Config): PaymentNetworks {
  const asset: Record<Chain, string> = {
    base: config.USDC_ADDRESS_BASE,
    polygon: config.USDC_ADDRESS_POLYGON,
  };
  const rpcUrl: Record<Chain, string | undefined> = {
    base: config.RPC_URL_BASE,
    polygon: config.RPC_URL_POLYGON,
  };
  const out = {} as PaymentNetworks;
  for (const chain of CHAINS) {
    const url = rpcUrl[chain];
    out[chain] = {
      chain,
      network: NETWORK_OF[chain],
      chainId: CHAIN_ID_OF[chain],
      asset: getAddress(asset[chain]),
      eip712: { name: config.USDC_EIP712_NAME, version: config.USDC_EIP712_VERSION },
      ...(url && {
        rpc: createPublicClient({ transport: http(url, { timeout: 10_000 }) }),
        signatures: new SmartAccountVerifier(url, {
          timeoutMs: config.RPC_SIGNATURE_TIMEOUT_MS,
          concurrency: config.RPC_SIGNATURE_CONCURRENCY,
          noCodeTtlMs: config.RPC_NO_CODE_CACHE_SECONDS * 1000,
        }),
      }),
    };
  }
  return out;
}

export function networkByCaip2(
  networks: PaymentNetworks,
  network: string,
): PaymentNetwork | undefined {
  return Object.values(networks).find((n) => n.network === network);
}
