/**
 * Payout contracts over RPC (PAYMENT_RAIL=chain): the platform deploys each seller's contract
 * through the CREATE2 factory, reads balances of many payout contracts in one Multicall3 batch per
 * chain, and forwards a balance by sending `distribute` from the relayer (the same call the
 * `payout_now` recipe describes; anyone may send it).
 */
import { getAddress, parseEventLogs, type Address, type Hex } from 'viem';
import type { Db } from '../db/index.js';
import type { Chain } from '../wire/chains.js';
import { PayoutTokenMissing, pendingGross, type PayoutRail } from '../domain/payouts/rail.js';
import type { PaymentNetworks } from '../x402/networks.js';
import { PayoutFactory, PayoutSplitter, TestUSDC } from './artifacts.js';
import type { Relayer } from './clients.js';
import { payoutDeployArgs, type PayoutTerms } from './payout-address.js';

const ERC20_BALANCE_ABI = TestUSDC.abi;

export class RpcPayoutRail implements PayoutRail {
  constructor(
    private readonly relayer: Relayer,
    private readonly networks: PaymentNetworks,
    private readonly terms: PayoutTerms,
    private readonly confirmationTimeoutMs = 15_000,
  ) {}

  async balances(chain: Chain, addresses: string[]): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    if (addresses.length === 0) return out;
    const token = this.networks[chain].asset;
    const pub = this.relayer.clients(chain).public;
    let results: unknown[];
    try {
      results = await pub.multicall({
        allowFailure: false,
        contracts: addresses.map((a) => ({
          address: token,
          abi: ERC20_BALANCE_ABI,
          functionName: 'balanceOf' as const,
          args: [getAddress(a)] as const,
        })),
      });
    } catch (err) {
      // A failed read is the spec's token_missing when the configured token has no contract on
      // this chain (a wrong USDC_ADDRESS_*, or the wrong chain behind the RPC URL); anything
      // else (the RPC down, Multicall3 missing) stays an RPC failure.
      if (await this.tokenMissing(chain, token)) throw new PayoutTokenMissing(chain);
      throw err;
    }
    addresses.forEach((a, i) => out.set(a.toLowerCase(), results[i] as bigint));
    return out;
  }

  /** True when the chain answers and holds no code at the token address (eth_getCode). */
  private async tokenMissing(chain: Chain, token: Address): Promise<boolean> {
    try {
      const code = await this.relayer.clients(chain).public.getCode({ address: token });
      return !code || code === '0x';
    } catch {
      return false; // the chain itself is unreachable: rpc_error
    }
  }

  async distribute(
    chain: Chain,
    payoutAddress: string,
  ): Promise<{ txHash: string; grossRaw: bigint; sellerRaw: bigint; platformRaw: bigint }> {
    const contract = getAddress(payoutAddress);
    const token = this.networks[chain].asset;
    const pub = this.relayer.clients(chain).public;
    // Nothing to forward past the dust: no transaction (the rail's contract, rail.ts).
    const balance = (await this.balances(chain, [contract])).get(contract.toLowerCase()) ?? 0n;
    const gross = pendingGross(balance);
    if (gross === 0n || (gross < 10_000n && !(await this.anyShare(chain, contract, gross)))) {
      return { txHash: '', grossRaw: 0n, sellerRaw: 0n, platformRaw: 0n };
    }
    const hash = await this.relayer.send(chain, (c) =>
      c.wallet.writeContract({
        address: contract,
        abi: PayoutSplitter.abi,
        functionName: 'distribute',
        args: [token, 0n, this.relayer.address],
      }),
    );
    const receipt = await pub.waitForTransactionReceipt({
      hash,
      timeout: this.confirmationTimeoutMs,
    });
    if (receipt.status !== 'success') throw new Error(`distribute ${hash} reverted`);
    const [event] = parseEventLogs({
      abi: PayoutSplitter.abi,
      eventName: 'Distributed',
      logs: receipt.logs.filter((l) => l.address.toLowerCase() === contract.toLowerCase()),
    });
    if (!event) throw new Error(`distribute ${hash} emitted no Distributed event`);
    return {
      txHash: hash,
      grossRaw: event.args.gross,
      sellerRaw: event.args.sellerAmount,
      platformRaw: event.args.platformAmount,
    };
  }

  /** False when a tiny pending amount would give both shares 0 (a transaction moving nothing). */
  private async anyShare(chain: Chain, contract: Address, gross: bigint): Promise<boolean> {
    const pub = this.relayer.clients(chain).public;
    const [sellerBps, platformBps] = await Promise.all(
      (['sellerBps', 'platformBps'] as const).map((functionName) =>
        pub.readContract({ address: contract, abi: PayoutSplitter.abi, functionName }),
      ),
    );
    return (gross * BigInt(sellerBps!)) / 10_000n + (gross * BigInt(platformBps!)) / 10_000n > 0n;
  }

  /**
   * Deploys the payout contracts still missing (oldest first), through the factory from the
   * relayer, and marks each payable (`deployed_at`) once its code is on chain. A contract someone
   * else already deployed is only marked (`onDeployed` then drops the seller's cached prompts).
   * Returns what it did; failures are retried next pass.
   */
  async deployMissing(
    sql: Db,
    opts: { limit?: number; onDeployed?: (agentId: string) => void } = {},
  ): Promise<{ deployed: number; failed: number; errors: string[] }> {
    const limit = opts.limit ?? 50;
    const rows = await sql<
      {
        agentId: string;
        chain: Chain;
        address: string;
        seller: string;
        sellerBps: number;
        platformBps: number;
      }[]
    >`
      select p.agent_id, p.chain, p.address, a.address as seller, p.seller_bps, p.platform_bps
      from payout_addresses p join agents a on a.id = p.agent_id
      where p.deployed_at is null
      order by p.created_at limit ${limit}`;
    let deployed = 0;
    const errors: string[] = [];
    for (const row of rows) {
      try {
        // The allocation fixed at provisioning is part of the contract's address.
        const terms = { ...this.terms, sellerBps: row.sellerBps, platformBps: row.platformBps };
        await this.deploy(row.chain, row.seller as Address, row.address as Address, terms);
        await sql`
          update payout_addresses set deployed_at = now()
          where agent_id = ${row.agentId} and chain = ${row.chain} and deployed_at is null`;
        deployed++;
        opts.onDeployed?.(row.agentId);
      } catch (e) {
        errors.push(`${row.chain} ${row.address}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    return { deployed, failed: errors.length, errors };
  }

  /** One seller's contract on one chain (idempotent: the factory returns an existing one). */
  async deploy(
    chain: Chain,
    seller: Address,
    expected: Address,
    terms: PayoutTerms = this.terms,
  ): Promise<Hex | undefined> {
    const pub = this.relayer.clients(chain).public;
    const code = await pub.getCode({ address: expected });
    if (code && code !== '0x') return undefined;
    const args = payoutDeployArgs(terms, seller, chain);
    const hash = await this.relayer.send(chain, (c) =>
      c.wallet.writeContract({
        address: terms.factory,
        abi: PayoutFactory.abi,
        functionName: 'deploy',
        args: [...args],
      }),
    );
    const receipt = await pub.waitForTransactionReceipt({
      hash,
      timeout: this.confirmationTimeoutMs,
    });
    if (receipt.status !== 'success') throw new Error(`factory deploy ${hash} reverted`);
    const after = await pub.getCode({ address: expected });
    if (!after || after === '0x') {
      throw new Error(`factory deployed elsewhere than ${expected}: terms differ from config`);
    }
    return hash;
  }
}
