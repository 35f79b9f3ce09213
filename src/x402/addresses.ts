import type { Address } from 'viem';
import { BoundedCache } from '../bounded-cache.js';
import { checksumAddress } from './recovery.js';

/**
 * What viem's `getAddress` and `isAddressEqual` answer for the addresses of every paid request
 * (the payload's `from` and `to`, the requirement's `payTo` and asset), without viem's per-call
 * costs: viem hashes an address not seen before with its JavaScript Keccak (~40 µs of a first-time
 * buyer's served completion, stop 52) and re-orders an 8,192-entry LRU map on every read (~25 µs
 * of a repeat completion). Here the EIP-55 form comes from the native Keccak (./recovery.ts) and
 * is kept per input string in a `BoundedCache`, which never re-orders. Like `getAddress`, any
 * casing is accepted (a mixed-case checksum is not enforced) and anything but `0x` and 40 hex
 * digits throws; test/unit/recovery.test.ts compares both.
 */
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const known = new BoundedCache<string, Address>(8192);

export class InvalidAddress extends Error {
  constructor(address: string) {
    super(`not an address: ${JSON.stringify(address).slice(0, 60)}`);
  }
}

function derive(address: string): Address {
  if (!HEX_ADDRESS.test(address)) throw new InvalidAddress(address);
  return checksumAddress(address.slice(2).toLowerCase()) as Address;
}

/** The EIP-55 form of a `0x` address in any casing (viem's `getAddress`). */
export function checksummed(address: string): Address {
  return known.get(address, derive);
}

/** Whether two `0x` addresses are the same, in any casing; throws on a malformed one (viem's `isAddressEqual`). */
export function sameAddress(a: string, b: string): boolean {
  if (!HEX_ADDRESS.test(a)) throw new InvalidAddress(a);
  if (!HEX_ADDRESS.test(b)) throw new InvalidAddress(b);
  return a.toLowerCase() === b.toLowerCase();
}
