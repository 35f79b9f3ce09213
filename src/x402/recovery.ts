import { createRequire } from 'node:module';
import path from 'node:path';
import { secp256k1 as portable } from '@noble/curves/secp256k1';
import { keccak_256 as portableKeccak } from '@noble/hashes/sha3';
import { BoundedCache } from '../bounded-cache.js';

/**
 * Signer recovery of an EIP-3009 `TransferWithAuthorization` (EIP-712), the costliest step of a
 * paid request. The digest is built here from fixed-size words (the domain separator is computed
 * once per token), and the public key is recovered by libsecp256k1 through the native `secp256k1`
 * binding, or, when no native build loads on this platform, by @noble/curves, the pure-JS curve
 * code viem itself uses, imported statically so that no call pays for a dynamic `import()`. Both answer what viem's `recoverTypedDataAddress` answers
 * (the unit tests compare them): a 65-byte `r ‖ s ‖ v` signature, `v` in {0, 1, 27, 28}.
 * Keccak-256 (three per recovery) goes the same way: the native `keccak` binding's sponge, else
 * @noble/hashes.
 */

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // `secp256k1/bindings` throws when no prebuilt or compiled binding fits (its pure-JS fallback
    // is slower than @noble/curves, so that one is not used).
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

/**
 * The binding, loaded at the first recovery (the first paid request pays its ~15-20 ms once), not
 * as the service starts: a start that serves no payment never needs it (issue 25).
 */
let loaded: { binding: NativeSecp256k1 | undefined } | undefined;
function native(): NativeSecp256k1 | undefined {
  loaded ??= { binding: loadNative() };
  return loaded.binding;
}

/** The native Keccak sponge of the `keccak` package (libkeccak), driven directly. */
interface NativeSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

function loadNativeKeccak(): NativeSponge | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('keccak/package.json');
    // the package's own loader (its dependency) finds the prebuilt or locally built addon
    const load = createRequire(pkg)('node-gyp-build') as (dir: string) => unknown;
    const Sponge = load(path.dirname(pkg));
    if (typeof Sponge !== 'function') return undefined;
    return new (Sponge as new () => NativeSponge)();
  } catch {
    return undefined;
  }
}

// One sponge serves every hash: each call initialises it and runs to the end synchronously.
const sponge = loadNativeKeccak();

/** Keccak-256 (Ethereum's, not NIST SHA3-256): rate 1088 bits, capacity 512, padding bits 0x01. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (!sponge) return portableKeccak(data);
  sponge.initialize(1088, 512);
  sponge.absorb(data);
  sponge.absorbLastFewBits(0x01);
  return sponge.squeeze(32);
}

/**
 * The EIP-55 mixed-case form of a 20-byte address given as 40 lower-case hex digits (what viem's
 * `getAddress` answers; the unit tests compare them), hashed by the Keccak above.
 */
export function checksumAddress(lowerHex: string): string {
  if (!/^[0-9a-f]{40}$/.test(lowerHex)) throw new Error('not 40 lower-case hex digits');
  const hash = keccak256(Buffer.from(lowerHex, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 15;
    out += nibble >= 8 ? lowerHex[i]!.toUpperCase() : lowerHex[i]!;
  }
  return out;
}

/** Which implementation recovers signers in this process. */
/** Which recovery a call without `impl` uses (loads the binding, as the first recovery would). */
export const recoveryImplementation = (): 'native' | 'portable' =>
  native() ? 'native' : 'portable';
/** Which implementation hashes in this process. */
export const keccakImplementation: 'native' | 'portable' = sponge ? 'native' : 'portable';

export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

export interface TransferAuthorization {
  from: string;
  to: string;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: string;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const DOMAIN_TYPEHASH = keccak256(
  utf8('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
);
const TRANSFER_TYPEHASH = keccak256(
  utf8(
    'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
  ),
);
const UINT256_MAX = (1n << 256n) - 1n;

/** Writes a 0x hex value of at most `bytes` bytes right-aligned into the 32-byte word at `at`. */
function putHex(out: Buffer, at: number, hex: string, bytes: number): void {
  const digits = hex.slice(2);
  if (digits.length !== bytes * 2) throw new Error('bad hex length');
  if (out.write(digits, at + 32 - bytes, bytes, 'hex') !== bytes) throw new Error('bad hex');
}

function putUint(out: Buffer, at: number, v: bigint): void {
  if (v < 0n || v > UINT256_MAX) throw new Error('uint256 out of range');
  putHex(out, at, `0x${v.toString(16).padStart(64, '0')}`, 32);
}

const separators = new BoundedCache<string, Uint8Array>(64);

function domainSeparator(d: Eip712Domain): Uint8Array {
  const key = `${d.chainId}|${d.verifyingContract.toLowerCase()}|${d.name}|${d.version}`;
  return separators.get(key, () => {
    const words = Buffer.alloc(5 * 32);
    words.set(DOMAIN_TYPEHASH, 0);
    words.set(keccak256(utf8(d.name)), 32);
    words.set(keccak256(utf8(d.version)), 64);
    putUint(words, 96, BigInt(d.chainId));
    putHex(words, 128, d.verifyingContract, 20);
    return keccak256(words);
  });
}

/*
 * The digest's two inputs, written in place for every digest (a new zero-filled `Buffer.alloc` is
 * an ArrayBuffer of its own each time: ~12 µs of a served completion, stop 52). Safe to share: a
 * digest is built and hashed synchronously, every byte of `message` and every word of `words` is
 * written each time except the zero bytes that pad the two addresses, which nothing writes.
 */
const words = Buffer.alloc(7 * 32);
const message = Buffer.alloc(66);
words.set(TRANSFER_TYPEHASH, 0);
message[0] = 0x19;
message[1] = 0x01;

/** The EIP-712 digest the payer signed. */
export function authorizationDigest(d: Eip712Domain, a: TransferAuthorization): Uint8Array {
  putHex(words, 32, a.from, 20);
  putHex(words, 64, a.to, 20);
  putUint(words, 96, a.value);
  putUint(words, 128, a.validAfter);
  putUint(words, 160, a.validBefore);
  putHex(words, 192, a.nonce, 32);
  message.set(domainSeparator(d), 2);
  message.set(keccak256(words), 34);
  return keccak256(message);
}

function recoverPublicKey(
  impl: 'native' | 'portable',
  digest: Uint8Array,
  rs: Uint8Array,
  recid: number,
): Uint8Array {
  const binding = impl === 'native' ? native() : undefined;
  if (binding) return binding.ecdsaRecover(rs, recid, digest, false);
  return portable.Signature.fromCompact(rs)
    .addRecoveryBit(recid)
    .recoverPublicKey(digest)
    .toRawBytes(false);
}

/**
 * The lower-case address that signed `digest` with the 65-byte hex `signature`, or null when the
 * signature is malformed or recovers no point. `impl` is for tests: both give the same answer.
 */
export function recoverSigner(
  digest: Uint8Array,
  signature: string,
  impl: 'native' | 'portable' = recoveryImplementation(),
): string | null {
  if (signature.length !== 132) return null;
  const sig = Buffer.from(signature.slice(2), 'hex');
  if (sig.length !== 65) return null;
  const v = sig[64]!;
  const recid = v === 27 || v === 28 ? v - 27 : v === 0 || v === 1 ? v : -1;
  if (recid < 0) return null;
  try {
    const pub = recoverPublicKey(impl, digest, sig.subarray(0, 64), recid);
    return `0x${Buffer.from(keccak256(pub.subarray(1))).toString('hex', 12)}`;
  } catch {
    return null;
  }
}

/** The lower-case address that signed this authorization for this token, or null. */
export function recoverAuthorizationSigner(
  domain: Eip712Domain,
  authorization: TransferAuthorization,
  signature: string,
): string | null {
  let digest: Uint8Array;
  try {
    digest = authorizationDigest(domain, authorization);
  } catch {
    return null;
  }
  return recoverSigner(digest, signature);
}
