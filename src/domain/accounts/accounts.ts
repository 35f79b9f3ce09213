import type { Db, SqlFragment } from '../../db/index.js';
import { CHAINS, type Chain } from '../../wire/chains.js';
import { generateUsername } from './usernames.js';
import { checksumAddress, keccak256 } from '../../x402/recovery.js';
import { piece, Pieces, type Piece } from '../../db/pieces.js';
import { DEFAULT_ALLOCATION, type PayoutAllocation } from '../payouts/allocation.js';

export interface Agent {
  id: string;
  address: string;
  username: string;
  usernameType: 'automatic' | 'user_set';
  salesChains: Chain[];
  createdAt: Date;
}

export function normaliseAddress(address: string): string {
  return address.toLowerCase();
}

export async function findAgentByAddress(sql: Db, address: string): Promise<Agent | undefined> {
  const [row] = await sql<Agent[]>`
    select id, address, username, username_type, sales_chains, created_at
    from agents where address = ${normaliseAddress(address)}`;
  return row;
}

/**
 * The per-seller payout address on a chain. In production it is the seller's payout contract
 * (deployed by the platform's factory with fixed terms); its address is deterministic from the
 * seller and the chain, like a CREATE2 address, so provisioning never needs a chain write here.
 */
export function derivePayoutAddress(sellerAddress: string, chain: Chain, salt: string): string {
  // native Keccak (a first purchase derives one per chain): viem's is JavaScript, ~2.5x the CPU
  const seed = `payout:v1:${salt}:${chain}:${normaliseAddress(sellerAddress)}`;
  const h = keccak256(Buffer.from(seed, 'utf8'));
  return checksumAddress(Buffer.from(h.subarray(12)).toString('hex'));
}

/** How a deployment assigns payout addresses (one per seller and chain). */
export interface PayoutAddressing {
  addressOf(seller: string, chain: Chain): string;
  /**
   * True when an assigned address can be paid at once (the dev ledger). On a chain the contract is
   * deployed afterwards by the platform and the address is payable only from then (`deployed_at`).
   */
  deployedAtOnce: boolean;
  /** The split every payout contract created now enforces (spec 2.7 `allocation`). */
  allocation: PayoutAllocation;
}

/**
 * The agent of `address` as CTEs of a larger statement (the one that completes a payment, spec
 * 2.4, 5.2 rule 5: a zero-value handshake never provisions): ends in the CTE `agent`, one row
 * with the agent's columns and `created`. A known wallet (any address bound to an agent: the one
 * it was created with, or in Revision A a linked wallet) costs one index read; a new one gets its
 * account, the account's binding (`ownAddressBinding`) and a payout address on every supported chain with all chains accepted (spec 4.3 rule
 * 4). Only acts when the statement's `paid` relation has a row. A concurrent first payment by the
 * same wallet is absorbed by the upsert (the account it returns is not `created`, and its payout
 * addresses are the other statement's: a plain insert, for an account made in this statement,
 * cannot conflict, so it is no speculative insert); each payout address gets `allocation` (seller
 * and platform basis points), fixed from then on; a generated username that is taken fails the statement
 * (the caller runs it again with a fresh name). An account found by its address but not bound
 * (inserted by a build that left the binding to the trigger dropped in migration 481, during a
 * rolling upgrade) is bound here (`agent_rebound`), so its next purchase reads it as a repeat
 * buyer's; a bound one conflicts and is left as it is.
 */
export function agentProvisioning(
  sql: Db,
  address: string,
  addressing: PayoutAddressing,
): Piece<'agent', 'paid'> {
  const addr = normaliseAddress(address);
  const chains = [...CHAINS];
  const payouts = chains.map((chain) => addressing.addressOf(addr, chain));
  const writes = sql`
    agent_known as (
      select a.id, a.address, a.username, a.username_type, a.sales_chains, a.created_at, false as created
      from wallet_bindings b join agents a on a.id = b.agent_id where b.address = ${addr}
    ), agent_created as (
      insert into agents (address, username)
      select ${addr}, ${generateUsername()}
      where exists (select 1 from paid) and not exists (select 1 from agent_known)
      on conflict (address) do update set address = excluded.address
      returning id, address, username, username_type, sales_chains, created_at, (xmax = 0) as created
    ), agent_payouts as (
      insert into payout_addresses (agent_id, chain, address, seller_bps, platform_bps, deployed_at)
      select c.id, p.chain, p.address, ${addressing.allocation.sellerBps}::int,
             ${addressing.allocation.platformBps}::int, case when ${addressing.deployedAtOnce} then now() end
      from agent_created c cross join unnest(${chains}::text[], ${payouts}::text[]) as p (chain, address)
      where c.created
    ), agent_bound as (
      ${ownAddressBinding(sql, 'agent_created', sql`created`)}
    ), agent_rebound as (
      insert into wallet_bindings (address, agent_id, kind)
      select address, id, 'wallet' from agent_created where not created
      on conflict do nothing
    ), agent as (
      select * from agent_known where exists (select 1 from paid) union all select * from agent_created
    )`;
  return piece('agent', ['paid'], writes);
}

/**
 * THE binding of a new account's own address (one address is one agent, spec 5.1 rule 4), written
 * by every insert of an account in the same statement, from the rows the insert returned (`id`,
 * `address`; only those where `when` holds). A plain insert: an account just made has no binding,
 * so only an address another agent holds conflicts, and that fails the statement (23505). It
 * replaces a row trigger on `agents` (migration 481), whose PL/pgSQL call, speculative insert and
 * second plan cost a first purchase more than the row itself.
 */
export function ownAddressBinding(sql: Db, inserted: string, when?: SqlFragment): SqlFragment {
  return sql`insert into wallet_bindings (address, agent_id, kind)
      select address, id, 'wallet' from ${sql(inserted)}${when ? sql` where ${when}` : sql``}`;
}

/**
 * A buyer whose purchase committed before (see `purchaseFulfilment`): its agent read through the
 * wallet binding, no writes; no row when the wallet no longer names an agent.
 */
export function knownAgent(sql: Db, address: string): Piece<'agent', 'paid'> {
  return piece(
    'agent',
    ['paid'],
    sql`agent as (
            select a.id, a.username, false as created
            from wallet_bindings b join agents a on a.id = b.agent_id
            where b.address = ${normaliseAddress(address)} and exists (select 1 from paid))`,
  );
}

/** The agent a Revision A key names (its keyed purchase), whoever signed the payment. */
export function agentById(sql: Db, id: string): Piece<'agent', 'paid'> {
  return piece(
    'agent',
    ['paid'],
    sql`agent as (
          select id, username, false as created from agents
          where id = ${id}::uuid and exists (select 1 from paid))`,
  );
}

/**
 * Returns the agent for an address, creating it (outside any payment: the demo catalogue, tests)
 * with the same statement a paid operation uses.
 */
export async function provisionAgent(
  sql: Db,
  address: string,
  opts: { payoutSalt: string; allocation?: PayoutAllocation } | { payouts: PayoutAddressing },
): Promise<{ agent: Agent; created: boolean }> {
  const addressing =
    'payouts' in opts
      ? opts.payouts
      : {
          addressOf: (seller: string, chain: Chain) =>
            derivePayoutAddress(seller, chain, opts.payoutSalt),
          deployedAtOnce: true,
          allocation: opts.allocation ?? DEFAULT_ALLOCATION,
        };
  for (let attempt = 1; ; attempt++) {
    try {
      const statement = Pieces.given()
        .then(piece('paid', [], sql`paid as (select 1)`))
        .then(agentProvisioning(sql, address, addressing));
      const [row] = await sql<Array<Agent & { created: boolean }>>`
        ${statement.with(sql)}
        select * from agent`;
      const { created, ...agent } = row!;
      return { agent, created };
    } catch (e) {
      // A generated name can collide with a taken one: try again with a new one.
      if (attempt >= 8 || (e as { code?: string }).code !== '23505') throw e;
    }
  }
}

/** Chains an item of this seller is payable on right now (the `payable_chains` view, spec 2.1). */
export async function payableChains(sql: Db, sellerId: string): Promise<Chain[]> {
  const rows = await sql<{ chain: Chain }[]>`
    select chain from payable_chains where agent_id = ${sellerId} order by chain`;
  return rows.map((r) => r.chain);
}
