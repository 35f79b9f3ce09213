import {
  getAddress,
  isErc6492Signature,
  parseErc6492Signature,
  recoverMessageAddress,
  type Hex,
} from 'viem';
import {
  createSiweMessage,
  generateSiweNonce,
  parseSiweMessage,
  validateSiweMessage,
} from 'viem/siwe';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { PaymentNetworks } from '../../x402/networks.js';
import { CHAIN_ID_OF, type Chain } from '../../wire/chains.js';
import type { ChallengeBody, SignedChallenge, SiweAction } from '../../wire/auth.js';

/**
 * SIWE (EIP-4361) challenges of Revision A (spec 5.1): issued with this deployment's domain and
 * URI, a fresh nonce, the chain id and a 5-minute expiry; single use and bound to their action,
 * address and chain (the row keyed by the nonce holds the exact text issued, so an edited message
 * is refused). Signatures are EIP-191 `personal_sign`: an EOA recovers locally; anything else is a
 * smart account checked over the chain's RPC (EIP-1271, or ERC-6492 before deployment) through
 * viem's `verifySiweMessage`, without a flag from the caller.
 */
export const CHALLENGE_TTL_SECONDS = 300;

export interface SiweDeps {
  sql: Db;
  config: Pick<Config, 'PUBLIC_BASE_URL'>;
  networks: PaymentNetworks;
  now?: () => number;
}

const STATEMENTS: Record<SiweAction, string> = {
  register: 'Register this wallet with the Code artifact marketplace.',
  'link-wallet': 'Link this wallet to my Code artifact marketplace account.',
  'rotate-key': 'Issue a new API key for the Code artifact marketplace account of this wallet.',
};

const RESOURCE_OF: Record<SiweAction, string> = {
  register: '/api/v1/register',
  'link-wallet': '/api/v1/auth/link-wallet',
  'rotate-key': '/api/v1/auth/rotate-key',
};

function origin(config: SiweDeps['config']): { domain: string; uri: string; scheme: string } {
  const url = new URL(config.PUBLIC_BASE_URL);
  return { domain: url.host, uri: url.origin, scheme: url.protocol.replace(/:$/, '') };
}

/** `POST /api/v1/auth/challenge`: a fresh single-use SIWE message for one action. */
export async function createChallenge(deps: SiweDeps, body: ChallengeBody): Promise<string> {
  const now = new Date(deps.now?.() ?? Date.now());
  const expires = new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000);
  const { domain, uri, scheme } = origin(deps.config);
  const nonce = generateSiweNonce();
  const message = createSiweMessage({
    scheme,
    domain,
    address: getAddress(body.address),
    statement: STATEMENTS[body.action],
    uri,
    version: '1',
    chainId: CHAIN_ID_OF[body.chain],
    nonce,
    issuedAt: now,
    expirationTime: expires,
    requestId: body.action,
    resources: [`${deps.config.PUBLIC_BASE_URL}${RESOURCE_OF[body.action]}`],
  });
  await deps.sql`
    insert into siwe_challenges (nonce, address, chain, action, message, expires_at)
    values (${nonce}, ${body.address.toLowerCase()}, ${body.chain}, ${body.action}, ${message}, ${expires})`;
  return message;
}

/** A signed challenge that passed every check (not yet consumed: `consumeChallenge` does that). */
export interface VerifiedChallenge {
  nonce: string;
  /** Lower-case 0x address that signed. */
  address: string;
  chain: Chain;
  /**
   * For a smart account whose signature is its owner's plain ECDSA signature: that controlling EOA
   * (lower-case), bound to the same agent so neither can join another account (spec 5.1 rule 4).
   */
  controller?: string;
  smartAccount: boolean;
}

interface ChallengeRow {
  nonce: string;
  address: string;
  chain: Chain;
  action: SiweAction;
  message: string;
  expiresAt: Date;
  usedAt: Date | null;
}

const hex = (s: string): Hex => (s.startsWith('0x') ? s : `0x${s}`) as Hex;

async function recovers(message: string, signature: Hex): Promise<string | undefined> {
  if (signature.length !== 132) return undefined;
  try {
    return (await recoverMessageAddress({ message, signature })).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Checks a signed challenge for `action`: the message is one this deployment issued, unchanged,
 * for this action, unused and unexpired, and the signature is the challenged address's. Order of
 * answers: invalid_challenge, challenge_action_mismatch, challenge_used, challenge_expired,
 * invalid_signature. Reads only; the caller consumes it in the transaction that acts on it.
 */
export async function verifyChallenge(
  deps: SiweDeps,
  signed: SignedChallenge,
  action: SiweAction,
): Promise<VerifiedChallenge> {
  const parsed = parseSiweMessage(signed.message);
  if (!parsed.nonce) throw new AppError('invalid_challenge');
  const [row] = await deps.sql<ChallengeRow[]>`
    select nonce, address, chain, action, message, expires_at, used_at
    from siwe_challenges where nonce = ${parsed.nonce}`;
  if (!row || row.message !== signed.message) {
    throw new AppError('invalid_challenge', {
      message: 'the message is not a challenge this deployment issued, or it was changed',
    });
  }
  if (row.action !== action) {
    throw new AppError('challenge_action_mismatch', {
      message: `this challenge was issued for ${row.action}; request one with action ${action}`,
    });
  }
  if (row.usedAt) throw new AppError('challenge_used');
  const now = new Date(deps.now?.() ?? Date.now());
  if (row.expiresAt.getTime() <= now.getTime()) throw new AppError('challenge_expired');
  const { domain, scheme } = origin(deps.config);
  if (!validateSiweMessage({ message: parsed, domain, scheme, nonce: row.nonce, time: now })) {
    throw new AppError('invalid_challenge');
  }
  const signature = hex(signed.signature);
  const base = { nonce: row.nonce, address: row.address, chain: row.chain };
  const smart = deps.networks[row.chain].signatures;
  if ((await recovers(signed.message, signature)) === row.address) {
    smart?.rememberEoa(row.address);
    return { ...base, smartAccount: false };
  }
  let valid = false;
  if (smart) {
    // asked only of an address that can be a contract, bounded (src/x402/smart-accounts.ts)
    valid = await smart
      .accepts(row.address, signature, (rpc) =>
        rpc.verifySiweMessage({
          message: signed.message,
          signature,
          address: getAddress(row.address),
          domain,
          nonce: row.nonce,
          scheme,
          time: now,
        }),
      )
      .catch(() => false);
  }
  if (!valid) {
    throw new AppError('invalid_signature', {
      message: smart
        ? 'the signature is not valid for this message and address'
        : 'the signature does not recover to this address (smart accounts need an RPC URL configured for the chain)',
    });
  }
  const inner = isErc6492Signature(signature)
    ? parseErc6492Signature(signature).signature
    : signature;
  const owner = await recovers(signed.message, inner);
  return {
    ...base,
    smartAccount: true,
    ...(owner && owner !== row.address && { controller: owner }),
  };
}

/** Marks the challenge used, in the caller's transaction; a concurrent use loses (challenge_used). */
export async function consumeChallenge(sql: Db, nonce: string): Promise<void> {
  const [row] = await sql`
    update siwe_challenges set used_at = now()
    where nonce = ${nonce} and used_at is null returning nonce`;
  if (!row) throw new AppError('challenge_used');
}

/**
 * Drops challenges that expired more than a day ago, used or not (run by the purge task). An
 * expired challenge can never be accepted again, so its row only served to name the refusal;
 * after a day a replay is refused as an unknown challenge instead. Returns how many went.
 */
export async function purgeChallenges(sql: Db): Promise<number> {
  const gone = await sql`delete from siwe_challenges where expires_at < now() - interval '1 day'`;
  return gone.count;
}
