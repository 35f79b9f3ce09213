import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Address,
  type Chain as ViemChain,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { CHAIN_ID_OF, type Chain } from '../wire/chains.js';

/** Multicall3's address on every public EVM chain (and on our devchains). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** A viem chain for one of ours at `rpcUrl`, with Multicall3 so reads batch. */
export function viemChain(chain: Chain, rpcUrl: string): ViemChain {
  return defineChain({
    id: CHAIN_ID_OF[chain],
    name: chain,
    nativeCurrency:
      chain === 'base'
        ? { name: 'Ether', symbol: 'ETH', decimals: 18 }
        : { name: 'POL', symbol: 'POL', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}

export interface ChainClients {
  chain: Chain;
  public: PublicClient<Transport, ViemChain>;
  wallet: WalletClient<Transport, ViemChain, Account>;
}

/**
 * A public and a wallet client for one chain. Calls are not retried (a reverting call answers in
 * milliseconds instead of after viem's three retries) and time out after `timeoutMs`.
 */
export function chainClients(
  chain: Chain,
  rpcUrl: string,
  account: Account,
  timeoutMs = 10_000,
): ChainClients {
  const transport = http(rpcUrl, { retryCount: 0, timeout: timeoutMs });
  const c = viemChain(chain, rpcUrl);
  return {
    chain,
    public: createPublicClient({ chain: c, transport }),
    wallet: createWalletClient({ chain: c, transport, account }),
  };
}

/** Runs tasks one at a time (per relayer key and chain: its transaction nonces are sequential). */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * The platform's relayer key on every chain: clients per chain and one queue per chain, shared by
 * everything that sends from this key (settlements, payout deployments, payouts), so its
 * transactions never race for a nonce.
 */
export class Relayer {
  private readonly byChain = new Map<Chain, { clients: ChainClients; queue: SerialQueue }>();

  constructor(
    readonly account: Account,
    rpcUrls: Partial<Record<Chain, string>>,
    timeoutMs = 10_000,
  ) {
    for (const [chain, url] of Object.entries(rpcUrls) as Array<[Chain, string | undefined]>) {
      if (url) {
        this.byChain.set(chain, {
          clients: chainClients(chain, url, account, timeoutMs),
          queue: new SerialQueue(),
        });
      }
    }
  }

  get address(): Address {
    return this.account.address;
  }

  chains(): Chain[] {
    return [...this.byChain.keys()];
  }

  clients(chain: Chain): ChainClients {
    const entry = this.byChain.get(chain);
    if (!entry) throw new Error(`no RPC configured for ${chain}`);
    return entry.clients;
  }

  /** Runs `task` alone among this key's sends on `chain`. */
  send<T>(chain: Chain, task: (clients: ChainClients) => Promise<T>): Promise<T> {
    const entry = this.byChain.get(chain);
    if (!entry) return Promise.reject(new Error(`no RPC configured for ${chain}`));
    return entry.queue.run(() => task(entry.clients));
  }
}
