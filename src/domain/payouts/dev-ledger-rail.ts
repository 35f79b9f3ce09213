import { randomBytes } from 'node:crypto';
import type { Sql } from '../../db/index.js';
import { NETWORK_OF, type Chain } from '../../wire/chains.js';
import { forwardable, type PayoutRail } from './rail.js';

/**
 * The payout rail of the embedded default: payout addresses are accounts of the built-in
 * facilitator's dev ledger (migration 010), where sale proceeds already land; migration 051 opens
 * each payout address at 0, as a contract is deployed empty. `distribute` is what the contract
 * does, in one transaction with the payout address's row locked: floor shares to the seller's
 * wallet and the platform, the dust stays. Wallets never seen by the ledger start with its start
 * balance, as the facilitator counts them.
 */
export class DevLedgerRail implements PayoutRail {
  constructor(
    private readonly sql: Sql,
    private readonly opts: { platformPayTo: string; startBalanceMicro: number },
  ) {}

  async balances(chain: Chain, addresses: string[]): Promise<Map<string, bigint>> {
    const keys = addresses.map((a) => a.toLowerCase());
    const rows = await this.sql<{ address: string; balance: string }[]>`
      select address, balance_micro::text as balance from dev_ledger_balances
      where network = ${NETWORK_OF[chain]} and address = any(${keys})`;
    const out = new Map(keys.map((k) => [k, 0n]));
    for (const r of rows) out.set(r.address, BigInt(r.balance));
    return out;
  }

  async distribute(chain: Chain, payoutAddress: string) {
    const network = NETWORK_OF[chain];
    const address = payoutAddress.toLowerCase();
    const platform = this.opts.platformPayTo.toLowerCase();
    const start = this.opts.startBalanceMicro;
    return this.sql.begin(async (tx) => {
      const [src] = await tx<
        { balance: string; seller: string; sellerBps: number; platformBps: number }[]
      >`
        select b.balance_micro::text as balance, a.address as seller, p.seller_bps, p.platform_bps
        from payout_addresses p
        join agents a on a.id = p.agent_id
        join dev_ledger_balances b on b.network = ${network} and b.address = lower(p.address)
        where p.chain = ${chain} and lower(p.address) = ${address}
        for update of b`;
      const none = { txHash: '', grossRaw: 0n, sellerRaw: 0n, platformRaw: 0n };
      if (!src) return none;
      const { grossRaw: gross, sellerRaw, platformRaw } = forwardable(BigInt(src.balance), src);
      if (gross === 0n) return none;
      await tx`
        update dev_ledger_balances set balance_micro = balance_micro - ${(sellerRaw + platformRaw).toString()}::bigint
        where network = ${network} and address = ${address}`;
      for (const [to, amount] of [
        [src.seller, sellerRaw],
        [platform, platformRaw],
      ] as const) {
        if (amount === 0n) continue;
        await tx`
          insert into dev_ledger_balances (network, address, balance_micro)
          values (${network}, ${to}, ${start}::bigint + ${amount.toString()}::bigint)
          on conflict (network, address)
          do update set balance_micro = dev_ledger_balances.balance_micro + ${amount.toString()}::bigint`;
      }
      return {
        txHash: `0x${randomBytes(32).toString('hex')}`,
        grossRaw: gross,
        sellerRaw,
        platformRaw,
      };
    });
  }
}
