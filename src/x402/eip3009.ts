import { authorizationTypes } from '@x402/evm';
import type { Address, Hex } from 'viem';
import { checksummed, sameAddress } from './addresses.js';
import type { PaymentNetwork } from './networks.js';
import { recoverAuthorizationSigner } from './recovery.js';

/**
 * EIP-3009 `TransferWithAuthorization` as carried in an x402 `exact` EVM payload, and its
 * verification: EOA signatures by recovery (./recovery.ts: libsecp256k1, or @noble/curves where no
 * native build loads), smart-account signatures (EIP-1271, ERC-6492)
 * through the chain's RPC when one is configured. Shared by the guard and the local facilitator.
 */

/** The signed authorization of an `exact` EVM payload, as checked by `parseExactEvmPayload`. */
export interface Eip3009Authorization {
  /** Checksummed (EIP-55). */
  from: Address;
  /** Checksummed (EIP-55). */
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** Lower-case, 32 bytes. */
  nonce: Hex;
}

export interface ExactEvmPayload {
  /** Lower-case, `0x`-prefixed (some clients send it without). */
  signature: Hex;
  authorization: Eip3009Authorization;
}

/*
 * The payload checked by hand, as the zod 4 schema it replaced checked it (every paid request
 * parses one, twice where a facilitator checks it again; the schema cost several times the check):
 * an object (not an array, any prototype), its fields read once each in the schema's order, every
 * one read before the verdict as zod's object parse does, unknown keys dropped. The unit test keeps
 * that schema (test/helpers/zod-exact-evm-payload.ts) and compares both on valid and hostile
 * payloads (test/unit/x402-exact-payload.test.ts).
 */
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const UINT = /^\d{1,78}$/;
/** `z.union([z.string().regex(UINT), z.number().int().nonnegative()])` then `BigInt`. */
function uint(v: unknown): bigint | undefined {
  if (typeof v === 'string') return UINT.test(v) ? BigInt(v) : undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const address = (v: unknown): Address | undefined =>
  typeof v === 'string' && ADDRESS.test(v) ? checksummed(v) : undefined;

// Some client libraries emit signatures without the 0x prefix: accept both.
const SIGNATURE = /^(0x)?[0-9a-fA-F]+$/;
function signatureHex(v: unknown): Hex | undefined {
  if (typeof v !== 'string' || !SIGNATURE.test(v)) return undefined;
  const prefixed = v.startsWith('0x');
  const digits = v.length - (prefixed ? 2 : 0);
  if (digits % 2 !== 0 || digits < 130) return undefined;
  return (prefixed ? v : `0x${v}`).toLowerCase() as Hex;
}

const NONCE = /^0x[0-9a-fA-F]{64}$/;

function check(payload: unknown): ExactEvmPayload | undefined {
  if (!isObject(payload)) return undefined;
  const sig = payload.signature;
  const auth = payload.authorization;
  const signature = signatureHex(sig);
  if (!isObject(auth)) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = auth;
  if (signature === undefined) return undefined;
  const a = {
    from: address(from),
    to: address(to),
    value: uint(value),
    validAfter: uint(validAfter),
    validBefore: uint(validBefore),
    nonce:
      typeof nonce === 'string' && NONCE.test(nonce) ? (nonce.toLowerCase() as Hex) : undefined,
  };
  if (
    a.from === undefined ||
    a.to === undefined ||
    a.value === undefined ||
    a.validAfter === undefined ||
    a.validBefore === undefined ||
    a.nonce === undefined
  ) {
    return undefined;
  }
  return { signature, authorization: a as Eip3009Authorization };
}

// The guard parses a payload, then hands the facilitator the object it built from the result:
// remember that object's parse, so the second look costs nothing (objects only, never mutated).
const parsed = new WeakMap<object, ExactEvmPayload>();

export function parseExactEvmPayload(payload: unknown): ExactEvmPayload | undefined {
  const known = typeof payload === 'object' && payload !== null ? parsed.get(payload) : undefined;
  if (known) return known;
  return check(payload);
}

/** The `payload` of a verified payment (normalised signature, the signed authorization as sent). */
export function verifiedExactPayload(
  exact: ExactEvmPayload,
  authorization: unknown,
): { signature: Hex; authorization: unknown } {
  const out = { signature: exact.signature, authorization };
  parsed.set(out, exact);
  return out;
}

function typedData(net: PaymentNetwork, auth: Eip3009Authorization) {
  return {
    domain: {
      name: net.eip712.name,
      version: net.eip712.version,
      chainId: net.chainId,
      verifyingContract: net.asset,
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: {
      from: auth.from,
      to: auth.to,
      value: auth.value,
      validAfter: auth.validAfter,
      validBefore: auth.validBefore,
      nonce: auth.nonce,
    },
  };
}

// Recovery is the expensive step. The guard and the facilitator (verify, then settle) look at the
// same signature in one request: remember recent results, keyed by everything signed.
const CACHE_MAX = 2048;
const recovered = new Map<string, string | null>();
function cacheKey(net: PaymentNetwork, p: ExactEvmPayload): string {
  const a = p.authorization;
  return `${net.chainId}|${net.asset}|${net.eip712.name}|${net.eip712.version}|${a.from}|${a.to}|${a.value}|${a.validAfter}|${a.validBefore}|${a.nonce}|${p.signature}`;
}

/** The lower-case signer of an EOA signature, or null (a longer one cannot recover). */
function recover(net: PaymentNetwork, p: ExactEvmPayload): string | null {
  const key = cacheKey(net, p);
  const hit = recovered.get(key);
  if (hit !== undefined) return hit;
  const d = typedData(net, p.authorization);
  const addr = recoverAuthorizationSigner(d.domain, d.message, p.signature);
  if (recovered.size >= CACHE_MAX) recovered.delete(recovered.keys().next().value!);
  recovered.set(key, addr);
  return addr;
}

/**
 * True when `authorization.from` signed this authorization for this network's token: by EOA
 * recovery first, else (RPC configured) by the account's own EIP-1271 check, ERC-6492 for
 * undeployed ones, asked only of an address that can be a contract (./smart-accounts.ts), so a
 * forged EOA signature costs no RPC call. Throws `SignatureCheckUnavailable` when the chain could
 * not be asked in time.
 */
export async function verifyAuthorizationSignature(
  net: PaymentNetwork,
  p: ExactEvmPayload,
): Promise<boolean> {
  const signer = recover(net, p);
  const from = p.authorization.from.toLowerCase();
  if (signer !== null && signer === from) {
    net.signatures?.rememberEoa(from);
    return true;
  }
  if (!net.signatures) return false;
  return net.signatures.accepts(from, p.signature, (rpc) =>
    rpc.verifyTypedData({
      address: p.authorization.from,
      ...typedData(net, p.authorization),
      signature: p.signature,
    }),
  );
}

/** The reason a payment is refused with when a smart account's signature could not be checked. */
export const SMART_ACCOUNT_CHECK_UNAVAILABLE = 'smart_account_check_unavailable';

export interface AuthorizationExpectation {
  payTo: string;
  amount: string;
  maxTimeoutSeconds: number;
}

/**
 * Checks the signed fields against what was asked: recipient, exact amount and the validity window
 * (`validAfter` not in the future, `validBefore` far enough ahead to settle and not longer than the
 * advertised timeout). Returns an x402 reason string, or undefined when everything matches.
 */
export function checkAuthorization(
  auth: Eip3009Authorization,
  expect: AuthorizationExpectation,
  opts: { nowSeconds: number; skewSeconds: number; settleMarginSeconds?: number },
): string | undefined {
  const now = BigInt(opts.nowSeconds);
  const skew = BigInt(opts.skewSeconds);
  if (!sameAddress(auth.to, expect.payTo)) return 'invalid_exact_evm_recipient_mismatch';
  if (auth.value !== BigInt(expect.amount))
    return 'invalid_exact_evm_payload_authorization_value_mismatch';
  if (auth.validAfter > now + skew) return 'invalid_exact_evm_payload_authorization_valid_after';
  if (auth.validBefore <= now + BigInt(opts.settleMarginSeconds ?? 0)) {
    return 'invalid_exact_evm_payload_authorization_valid_before';
  }
  if (auth.validBefore > now + BigInt(expect.maxTimeoutSeconds) + skew) {
    return 'invalid_exact_evm_payload_authorization_valid_before';
  }
  return undefined;
}
