import {
  encodeAbiParameters,
  encodeDeployData,
  getAddress,
  getContractAddress,
  keccak256,
  type Address,
  type Hex,
} from 'viem';
import { CHAIN_ID_OF, type Chain } from '../wire/chains.js';
import type { Config } from '../config.js';
import { derivePayoutAddress, type PayoutAddressing } from '../domain/accounts/accounts.js';
import { allocationOf } from '../domain/payouts/allocation.js';
import { PayoutSplitter } from './artifacts.js';

/** The fixed terms of every payout contract a deployment creates (spec 2.7 `allocation`). */
export interface PayoutTerms {
  factory: Address;
  platform: Address;
  sellerBps: number;
  platformBps: number;
  /** Deployment-wide salt (PAYOUT_FACTORY_SALT): another deployment's sellers get other addresses. */
  salt: string;
}

/** CREATE2 salt of one seller's payout contract on one chain. */
export function payoutSalt(terms: PayoutTerms, seller: Address, chain: Chain): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'string' }, { type: 'uint256' }, { type: 'address' }],
      ['payout:v1', terms.salt, BigInt(CHAIN_ID_OF[chain]), getAddress(seller)],
    ),
  );
}

/** Constructor arguments of a seller's payout contract, as the factory's `deploy` takes them. */
export function payoutDeployArgs(terms: PayoutTerms, seller: Address, chain: Chain) {
  return [
    getAddress(seller),
    getAddress(terms.platform),
    terms.sellerBps,
    terms.platformBps,
    payoutSalt(terms, seller, chain),
  ] as const;
}

const initCodeHashes = new Map<string, Hex>();

/** keccak256 of the init code for one seller (memoised per terms and seller: it hashes ~2 KB). */
function initCodeHash(terms: PayoutTerms, seller: Address): Hex {
  const key = `${terms.platform}|${terms.sellerBps}|${terms.platformBps}|${seller}`.toLowerCase();
  let hash = initCodeHashes.get(key);
  if (!hash) {
    hash = keccak256(
      encodeDeployData({
        abi: PayoutSplitter.abi,
        bytecode: PayoutSplitter.bytecode,
        args: [getAddress(seller), getAddress(terms.platform), terms.sellerBps, terms.platformBps],
      }),
    );
    if (initCodeHashes.size >= 4096) initCodeHashes.delete(initCodeHashes.keys().next().value!);
    initCodeHashes.set(key, hash);
  }
  return hash;
}

/**
 * The seller's payout contract address on `chain`: known before the contract exists (CREATE2 from
 * the factory, the terms and a salt of seller and chain), identical to what the factory's
 * `predict` answers.
 */
export function payoutContractAddress(terms: PayoutTerms, seller: Address, chain: Chain): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: terms.factory,
    salt: payoutSalt(terms, seller, chain),
    bytecodeHash: initCodeHash(terms, getAddress(seller)),
  });
}

export type PayoutConfig = Pick<
  Config,
  | 'PAYMENT_RAIL'
  | 'PAYOUT_FACTORY_SALT'
  | 'PAYOUT_FACTORY_ADDRESS'
  | 'PAYOUT_SELLER_BPS'
  | 'PAYOUT_PLATFORM_BPS'
  | 'PLATFORM_PAY_TO'
>;
const addressings = new WeakMap<object, PayoutAddressing>();

/**
 * The deployment's payout addressing: on the chain rail, the seller's CREATE2 payout contract from
 * PAYOUT_FACTORY_ADDRESS with the allocation of PAYOUT_PLATFORM_BPS; on the dev ledger, an
 * address derived from the salt, payable at once.
 */
export function payoutAddressing(config: PayoutConfig): PayoutAddressing {
  let a = addressings.get(config);
  if (a) return a;
  if (config.PAYMENT_RAIL === 'chain') {
    const terms = payoutTermsOf(config);
    a = {
      addressOf: (seller, chain) => payoutContractAddress(terms, getAddress(seller), chain),
      deployedAtOnce: false,
      allocation: allocationOf(config),
    };
  } else {
    a = {
      addressOf: (seller, chain) => derivePayoutAddress(seller, chain, config.PAYOUT_FACTORY_SALT),
      deployedAtOnce: true,
      allocation: allocationOf(config),
    };
  }
  addressings.set(config, a);
  return a;
}

/** The fixed terms of every payout contract of a chain-rail deployment. */
export function payoutTermsOf(config: PayoutConfig) {
  if (!config.PAYOUT_FACTORY_ADDRESS || !config.PLATFORM_PAY_TO) {
    throw new Error('PAYMENT_RAIL=chain needs PAYOUT_FACTORY_ADDRESS and PLATFORM_PAY_TO');
  }
  return {
    factory: getAddress(config.PAYOUT_FACTORY_ADDRESS),
    platform: getAddress(config.PLATFORM_PAY_TO),
    sellerBps: config.PAYOUT_SELLER_BPS,
    platformBps: config.PAYOUT_PLATFORM_BPS,
    salt: config.PAYOUT_FACTORY_SALT,
  };
}
