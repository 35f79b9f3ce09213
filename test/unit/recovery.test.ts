import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { authorizationTypes } from '@x402/evm';
import {
  getAddress,
  hashTypedData,
  isAddressEqual,
  keccak256 as viemKeccak,
  recoverTypedDataAddress,
  toHex,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { derivePayoutAddress } from '../../src/domain/accounts/accounts.js';
import { CHAINS } from '../../src/wire/chains.js';
import { checksummed, sameAddress } from '../../src/x402/addresses.js';
import {
  authorizationDigest,
  checksumAddress,
  keccak256,
  keccakImplementation,
  recoverSigner,
  recoveryImplementation,
  type Eip712Domain,
  type TransferAuthorization,
} from '../../src/x402/recovery.js';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const domains: Eip712Domain[] = [
  {
    name: 'USD Coin',
    version: '2',
    chainId: 8453,
    verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  },
  {
    name: 'USDC',
    version: '2',
    chainId: 137,
    verifyingContract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  },
];

function authorization(from: string, i: number): TransferAuthorization {
  return {
    from,
    to: getAddress(`0x${randomBytes(20).toString('hex')}`),
    value: i === 0 ? 0n : i === 1 ? (1n << 256n) - 1n : BigInt(Math.floor(Math.random() * 1e12)),
    validAfter: BigInt(i),
    validBefore: BigInt(1_900_000_000 + i),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
}

const viewOf = (a: TransferAuthorization) => ({
  ...a,
  nonce: a.nonce as Hex,
  from: a.from as Hex,
  to: a.to as Hex,
});

describe('signer recovery of EIP-3009 authorizations', () => {
  it('recovers what viem recovers, natively and portably, for every domain and edge value', async () => {
    expect(recoveryImplementation()).toBe('native'); // the prebuilt binding loads on this platform
    for (const [i, domain] of [...domains, ...domains, ...domains].entries()) {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = authorization(account.address, i);
      const typed = {
        domain: { ...domain, verifyingContract: domain.verifyingContract as Hex },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization' as const,
        message: viewOf(message),
      };
      const signature = await account.signTypedData(typed);
      const digest = authorizationDigest(domain, message);
      expect(Buffer.from(digest).toString('hex')).toBe(hashTypedData(typed).slice(2));
      const viem = (await recoverTypedDataAddress({ ...typed, signature })).toLowerCase();
      expect(viem).toBe(account.address.toLowerCase());
      expect(recoverSigner(digest, signature, 'native')).toBe(viem);
      expect(recoverSigner(digest, signature, 'portable')).toBe(viem);
      // v as 0/1 instead of 27/28
      const v01 = `${signature.slice(0, 130)}${(parseInt(signature.slice(130), 16) - 27).toString(16).padStart(2, '0')}`;
      expect(recoverSigner(digest, v01, 'native')).toBe(viem);
      // the same (r, n - s) with the other parity: both implementations agree with viem
      const s = BigInt(`0x${signature.slice(66, 130)}`);
      const v = parseInt(signature.slice(130), 16);
      const highS =
        `${signature.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
      const viemHigh = (
        await recoverTypedDataAddress({ ...typed, signature: highS })
      ).toLowerCase();
      expect(recoverSigner(digest, highS, 'native')).toBe(viemHigh);
      expect(recoverSigner(digest, highS, 'portable')).toBe(viemHigh);
      // another message signed by nobody recovers to someone else
      const other = authorizationDigest(domain, { ...message, value: message.value ^ 1n });
      expect(recoverSigner(other, signature, 'native')).not.toBe(viem);
    }
  });

  it('refuses malformed signatures in both implementations', () => {
    const digest = authorizationDigest(domains[0]!, authorization(`0x${'11'.repeat(20)}`, 3));
    const r = 'aa'.repeat(32);
    const s = 'bb'.repeat(32);
    for (const impl of ['native', 'portable'] as const) {
      expect(recoverSigner(digest, `0x${r}${s}1d`, impl)).toBeNull(); // v = 29
      expect(recoverSigner(digest, `0x${'00'.repeat(32)}${s}1b`, impl)).toBeNull(); // r = 0
      expect(recoverSigner(digest, `0x${r}${'ff'.repeat(32)}1b`, impl)).toBeNull(); // s >= n
      expect(recoverSigner(digest, `0x${r}${s}`, impl)).toBeNull(); // 64 bytes
      expect(recoverSigner(digest, `0x${r}${s.slice(0, 62)}zz1b`, impl)).toBeNull(); // not hex
    }
  });

  it('hashes with Keccak-256 as @noble/hashes does, natively, one block and many', () => {
    expect(keccakImplementation).toBe('native'); // the prebuilt binding loads on this platform
    for (const size of [0, 1, 31, 32, 64, 66, 135, 136, 137, 224, 272, 1000]) {
      const data = randomBytes(size);
      expect(Buffer.from(keccak256(data)).toString('hex'), `${size} bytes`).toBe(
        Buffer.from(keccak_256(data)).toString('hex'),
      );
    }
  });
});

describe('addresses hashed natively', () => {
  it('writes the EIP-55 checksum viem writes, and refuses anything but 40 lower-case hex digits', () => {
    const samples = [
      ...Array.from({ length: 300 }, () => randomBytes(20).toString('hex')),
      '0'.repeat(40),
      'f'.repeat(40),
      '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    ];
    for (const hex of samples) expect(checksumAddress(hex)).toBe(getAddress(`0x${hex}`));
    for (const bad of ['', '0x' + '0'.repeat(40), 'A'.repeat(40), '0'.repeat(39), 'g'.repeat(40)])
      expect(() => checksumAddress(bad)).toThrow();
  });

  it("answers what viem's getAddress and isAddressEqual answer, in any casing, and throws where they throw", () => {
    const casings = (hex: string) => [
      `0x${hex}`,
      `0x${hex.toUpperCase()}`,
      getAddress(`0x${hex}`),
      `0x${[...hex].map((c, i) => (i % 3 === 0 ? c.toUpperCase() : c)).join('')}`,
    ];
    const samples = [
      ...Array.from({ length: 200 }, () => randomBytes(20).toString('hex')),
      '0'.repeat(40),
      'f'.repeat(40),
    ];
    for (const hex of samples) {
      const other = randomBytes(20).toString('hex');
      for (const a of casings(hex)) {
        // twice: the second answer comes from the cache
        expect(checksummed(a)).toBe(getAddress(a));
        expect(checksummed(a)).toBe(getAddress(a));
        for (const b of casings(hex)) expect(sameAddress(a, b)).toBe(true);
        expect(sameAddress(a, `0x${other}`)).toBe(isAddressEqual(a as Hex, `0x${other}`));
      }
    }
    for (const bad of [
      '',
      '0x',
      `0x${'0'.repeat(39)}`,
      `0x${'0'.repeat(41)}`,
      `0x${'g'.repeat(40)}`,
      '0'.repeat(40),
      ` 0x${'0'.repeat(40)}`,
    ]) {
      expect(() => getAddress(bad)).toThrow();
      expect(() => checksummed(bad)).toThrow();
      expect(() => sameAddress(bad, `0x${'0'.repeat(40)}`)).toThrow();
      expect(() => sameAddress(`0x${'0'.repeat(40)}`, bad)).toThrow();
    }
  });

  it('derives the payout addresses viem derived (the addresses of existing accounts stay)', () => {
    for (let i = 0; i < 100; i++) {
      const seller = privateKeyToAccount(generatePrivateKey()).address;
      for (const chain of CHAINS) {
        const salt = randomBytes(8).toString('hex');
        const viem = getAddress(
          `0x${viemKeccak(toHex(`payout:v1:${salt}:${chain}:${seller.toLowerCase()}`)).slice(-40)}`,
        );
        expect(derivePayoutAddress(seller, chain, salt)).toBe(viem);
      }
    }
  });
});
