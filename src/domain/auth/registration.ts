import { getAddress } from 'viem';
import type { Config } from '../../config.js';
import type { Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { PaymentNetworks } from '../../x402/networks.js';
import { ownAddressBinding, type Agent, type PayoutAddressing } from '../accounts/accounts.js';
import { CHAINS } from '../../wire/chains.js';
import { issueApiKey } from './api-keys.js';
import type { RegisterBody, SignedChallenge } from '../../wire/auth.js';
import {
  consumeChallenge,
  verifyChallenge,
  type SiweDeps,
  type VerifiedChallenge,
} from './siwe.js';

/**
 * Revision A accounts (spec 4.2, 5.1): registration with signed wallets, key rotation by any bound
 * wallet (EOA or smart account, or the smart account's controlling EOA), and linking another
 * wallet with the key. Signatures are checked before any write; each challenge is consumed in the
 * transaction that acts on it, so a refused registration or link leaves it unused; a rotate-key
 * proof is spent either way (a kept proof must not mint a key for a wallet registered later).
 */
export interface AuthDeps {
  sql: Sql;
  config: Pick<Config, 'PUBLIC_BASE_URL'>;
  /** The deployment's payout addresses (src/chain/payout-address.ts, built once by the runtime). */
  payoutAddressing: PayoutAddressing;
  networks: PaymentNetworks;
  /** The acquire prompt cache: a new linked wallet changes the seller's payable chains at once. */
  saleItems?: { invalidateSeller(sellerId: string): void };
  now?: () => number;
}

const siwe = (deps: AuthDeps): SiweDeps => ({
  sql: deps.sql,
  config: deps.config,
  networks: deps.networks,
  ...(deps.now && { now: deps.now }),
});

function pgError(e: unknown): { code?: string; constraint?: string } {
  const err = e as { code?: string; constraint_name?: string; constraintName?: string };
  return { code: err.code, constraint: err.constraint_name ?? err.constraintName };
}

/** Every address a verified challenge binds: the wallet and its controlling EOA, if any. */
const boundBy = (v: VerifiedChallenge) => [v.address, ...(v.controller ? [v.controller] : [])];

/** `POST /api/v1/register`: a new agent with its wallets linked and its first API key. */
export async function register(
  deps: AuthDeps,
  body: RegisterBody,
): Promise<{ agent_id: string; api_key: string }> {
  const seen = new Set<string>();
  for (const w of body.wallets) {
    const key = `${w.address.toLowerCase()}:${w.chain}`;
    if (seen.has(key)) {
      throw new AppError('invalid_wallets', {
        message: `wallet ${w.address} on ${w.chain} is listed twice`,
      });
    }
    seen.add(key);
  }
  const verified: VerifiedChallenge[] = [];
  for (const w of body.wallets) {
    const v = await verifyChallenge(siwe(deps), w, 'register');
    if (v.address !== w.address.toLowerCase() || v.chain !== w.chain) {
      throw new AppError('invalid_challenge', {
        message: `the challenge of ${w.address} was issued for another address or chain`,
      });
    }
    verified.push(v);
  }
  const wallets = [...new Set(verified.map((v) => v.address))];
  const controllers = [
    ...new Set(verified.flatMap((v) => (v.controller ? [v.controller] : []))),
  ].filter((c) => !wallets.includes(c));
  const primary = wallets[0]!;
  try {
    return await deps.sql.begin(async (tx) => {
      for (const v of verified) await consumeChallenge(tx, v.nonce);
      const bound = await tx`
        select address from wallet_bindings where address in ${tx([...wallets, ...controllers])}`;
      if (bound.length > 0) throw new AppError('wallet_already_registered');
      const [agent] = await tx<{ id: string }[]>`
        with made as (
          insert into agents (address, username, username_type, country)
          values (${primary}, ${body.username}, 'user_set', ${body.country})
          returning id, address
        ), bound as (
          ${ownAddressBinding(tx, 'made')}
        )
        select id from made`;
      const agentId = agent!.id;
      const others = [
        ...wallets.slice(1).map((address) => ({ address, kind: 'wallet' })),
        ...controllers.map((address) => ({ address, kind: 'controller' })),
      ];
      for (const o of others) {
        await tx`insert into wallet_bindings (address, agent_id, kind) values (${o.address}, ${agentId}, ${o.kind})`;
      }
      for (const v of verified) {
        await tx`insert into linked_wallets (address, chain, agent_id) values (${v.address}, ${v.chain}, ${agentId})`;
      }
      // The same payout terms as provisioning: address, fixed allocation, and "deployed" at once
      // on the dev ledger or queued for the deployer on a chain rail.
      const addressing = deps.payoutAddressing;
      const { sellerBps, platformBps } = addressing.allocation;
      for (const chain of CHAINS) {
        const payTo = addressing.addressOf(primary, chain);
        await tx`
          insert into payout_addresses (agent_id, chain, address, seller_bps, platform_bps, deployed_at)
          values (${agentId}, ${chain}, ${payTo}, ${sellerBps}, ${platformBps},
                  case when ${addressing.deployedAtOnce} then now() end)`;
      }
      return { agent_id: agentId, api_key: await issueApiKey(tx, agentId) };
    });
  } catch (e) {
    const { code, constraint } = pgError(e);
    if (code === '23505' && constraint === 'agents_username_lower') {
      throw new AppError('username_taken');
    }
    if (code === '23505' || code === '23503') throw new AppError('wallet_already_registered');
    throw e;
  }
}

/**
 * `POST /api/v1/auth/rotate-key`: a new key for the agent of the signing wallet (a wallet it
 * linked, the address it was created with, or a smart account's controlling EOA); the previous
 * key stops working in the same statement.
 */
export async function rotateKey(
  deps: AuthDeps,
  signed: SignedChallenge,
): Promise<{ api_key: string; agent_id: string }> {
  const v = await verifyChallenge(siwe(deps), signed, 'rotate-key');
  const rotated = await deps.sql.begin(async (tx) => {
    await consumeChallenge(tx, v.nonce);
    const [bound] = await tx<{ agentId: string }[]>`
      select agent_id from wallet_bindings where address in ${tx(boundBy(v))}
      order by (address = ${v.address}) desc limit 1`;
    // No account: the challenge stays consumed (committed), so a proof kept from this refusal
    // cannot mint a key once the wallet is registered or linked.
    if (!bound) return undefined;
    return { api_key: await issueApiKey(tx, bound.agentId), agent_id: bound.agentId };
  });
  if (!rotated) {
    throw new AppError('agent_not_found', {
      message: 'no account is bound to this wallet: register it, or sign with a linked wallet',
    });
  }
  return rotated;
}

/** `POST /api/v1/auth/link-wallet`: links the signing wallet, on the challenge's chain, to `agent`. */
export async function linkWallet(
  deps: AuthDeps,
  agent: Pick<Agent, 'id'>,
  signed: SignedChallenge,
): Promise<{ message: string }> {
  const v = await verifyChallenge(siwe(deps), signed, 'link-wallet');
  try {
    await deps.sql.begin(async (tx) => {
      await consumeChallenge(tx, v.nonce);
      const held = await tx<{ agentId: string }[]>`
        select agent_id from wallet_bindings where address in ${tx(boundBy(v))}`;
      if (held.some((h) => h.agentId !== agent.id)) throw new AppError('wallet_already_linked');
      await tx`
        insert into wallet_bindings (address, agent_id, kind) values (${v.address}, ${agent.id}, 'wallet')
        on conflict (address) do update set kind = 'wallet' where wallet_bindings.agent_id = excluded.agent_id`;
      if (v.controller) {
        await tx`
          insert into wallet_bindings (address, agent_id, kind) values (${v.controller}, ${agent.id}, 'controller')
          on conflict (address) do nothing`;
      }
      await tx`
        insert into linked_wallets (address, chain, agent_id) values (${v.address}, ${v.chain}, ${agent.id})
        on conflict (address, chain) do nothing`;
    });
  } catch (e) {
    const { code } = pgError(e);
    if (code === '23505' || code === '23503') throw new AppError('wallet_already_linked');
    throw e;
  }
  deps.saleItems?.invalidateSeller(agent.id);
  return { message: `Wallet ${getAddress(v.address)} is linked on ${v.chain}.` };
}
