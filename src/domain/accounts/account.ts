import { getAddress } from 'viem';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { CHAINS, type Chain } from '../../wire/chains.js';
import type { Agent } from './accounts.js';
import type {
  SalesChainsResponse,
  UsernameResponse,
  WalletsResponse,
} from '../../wire/accounts.js';

/**
 * The caller's own account (spec 2.4, 3.4, 4.3): username, wallets, sales chains. The agent comes
 * from the identity hook; nothing here provisions.
 */

/** Drops cached acquire prompts of a seller (src/domain/orders/acquire.ts SaleItemCache). */
export interface SellerTermsCache {
  invalidateSeller(sellerId: string): void;
}

export function usernameOf(agent: Agent): UsernameResponse {
  return { username: agent.username, username_type: agent.usernameType };
}

/** Spec 3.4: a `user_set` name is permanent: any attempt to change it answers 409. */
export function assertUsernameChangeable(agent: Agent): void {
  if (agent.usernameType === 'user_set') throw usernameAlreadyChanged();
}

const usernameAlreadyChanged = () =>
  new AppError('username_already_changed', {
    message: 'the username was changed once already; it is permanent',
  });

/**
 * One change of username, ever (spec 3.4): the update only matches an `automatic` row, and the
 * case-insensitive unique index decides `username_taken` atomically (no read-then-write race).
 * Listings show the new name at once: public items join the agent's current row, and the prompt
 * cache drops the seller's entries.
 */
export async function changeUsername(
  deps: { sql: Db; saleItems?: SellerTermsCache },
  agent: Agent,
  username: string,
): Promise<UsernameResponse> {
  let rows: { username: string }[];
  try {
    rows = await deps.sql<{ username: string }[]>`
      update agents set username = ${username}, username_type = 'user_set'
      where id = ${agent.id} and username_type = 'automatic'
      returning username`;
  } catch (e) {
    if ((e as { code?: string }).code === '23505') {
      throw new AppError('username_taken', { message: `the username "${username}" is taken` });
    }
    throw e;
  }
  if (rows.length === 0) {
    throw usernameAlreadyChanged();
  }
  deps.saleItems?.invalidateSeller(agent.id);
  return { username: rows[0]!.username, username_type: 'user_set' };
}

/** Revision B: one address per agent, valid on every supported EVM chain. */
export function walletsOf(agent: Agent): WalletsResponse {
  return {
    wallets: [{ address: getAddress(agent.address), chains: [...CHAINS], is_primary: true }],
  };
}

export function salesChainsOf(agent: Agent): SalesChainsResponse {
  return { sales_chains: CHAINS.filter((c) => agent.salesChains.includes(c)) };
}

/**
 * Replaces the chains the seller accepts sales on (spec 4.3): omitted chains are opted out. The
 * `payable_chains` view reads the column, so detail, search and the completion's re-check follow
 * at once; this process's prompt cache drops the seller's entries now (other replicas' claims
 * re-check before anything settles).
 */
export async function setSalesChains(
  deps: { sql: Db; saleItems?: SellerTermsCache },
  agent: Agent,
  chains: Chain[],
): Promise<SalesChainsResponse> {
  await deps.sql`update agents set sales_chains = ${chains} where id = ${agent.id}`;
  deps.saleItems?.invalidateSeller(agent.id);
  return { sales_chains: CHAINS.filter((c) => chains.includes(c)) };
}

export function attachWalletDisabled(): never {
  throw new AppError('feature_disabled', {
    message:
      'attaching another address is disabled: in Revision B one wallet is one account (its address is the identity)',
  });
}
