import { keccak256, toHex, getAddress } from 'viem';
import type { Db } from '../../db/index.js';
import { CHAINS, type Chain } from '../chains.js';
import { generateUsername } from './usernames.js';

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
  const h = keccak256(toHex(`payout:v1:${salt}:${chain}:${normaliseAddress(sellerAddress)}`));
  return getAddress(`0x${h.slice(-40)}`);
}

/**
 * Returns the agent for an address, creating it on first paid operation (spec 2.4, 5.2 rule 5:
 * a zero-value handshake never calls this). Idempotent and safe under concurrency: two first
 * purchases by one wallet yield one agent. Provisioning also creates the payout address on every
 * supported chain with all chains accepted (spec 4.3 rule 4).
 */
export async function provisionAgent(
  sql: Db,
  address: string,
  opts: { payoutSalt: string },
): Promise<{ agent: Agent; created: boolean }> {
  const addr = normaliseAddress(address);
  for (let attempt = 0; attempt < 8; attempt++) {
    const existing = await findAgentByAddress(sql, addr);
    if (existing) {
      await ensurePayoutAddresses(sql, existing, opts.payoutSalt);
      return { agent: existing, created: false };
    }
    // A generated name can collide with a taken one; retry with a new one. The address conflict
    // means another request provisioned the same wallet first: read it on the next pass.
    const [row] = await sql<Agent[]>`
      insert into agents (address, username) values (${addr}, ${generateUsername()})
      on conflict do nothing
      returning id, address, username, username_type, sales_chains, created_at`;
    if (row) {
      await ensurePayoutAddresses(sql, row, opts.payoutSalt);
      return { agent: row, created: true };
    }
  }
  throw new Error('could not provision agent: username space exhausted after retries');
}

async function ensurePayoutAddresses(sql: Db, agent: Agent, salt: string): Promise<void> {
  const rows = CHAINS.map((chain) => ({
    agentId: agent.id,
    chain,
    address: derivePayoutAddress(agent.address, chain, salt),
  }));
  await sql`insert into payout_addresses ${sql(rows, 'agentId', 'chain', 'address')} on conflict do nothing`;
}

/**
 * Chains an item of this seller is payable on right now: accepted by the seller AND with a
 * payout address (spec 2.1 `available_chains`).
 */
export async function payableChains(sql: Db, sellerId: string): Promise<Chain[]> {
  const rows = await sql<{ chain: Chain }[]>`
    select p.chain from payout_addresses p join agents a on a.id = p.agent_id
    where p.agent_id = ${sellerId} and p.chain = any(a.sales_chains)
    order by p.chain`;
  return rows.map((r) => r.chain);
}
