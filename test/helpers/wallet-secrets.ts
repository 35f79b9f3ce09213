import { createCipheriv, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { bytesToHex, concat, keccak256, toBytes } from 'viem';
import {
  english,
  generateMnemonic,
  generatePrivateKey,
  mnemonicToAccount,
  privateKeyToAddress,
} from 'viem/accounts';

/**
 * Wallet secrets made fresh at test time (nothing secret is committed): a private key, a BIP-39
 * phrase, and a real Web3 Secret Storage (v3) keystore of a key, as wallets write them.
 */
export function freshKey(): `0x${string}` {
  return generatePrivateKey();
}

export function freshMnemonic(words: 12 | 24 = 12): string {
  return generateMnemonic(english, words === 12 ? 128 : 256);
}

/** Hardhat's and Anvil's default phrase: public, shipped by countless projects. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** The key of the `index`-th default development account (m/44'/60'/0'/0/index). */
export function devKey(index = 0): `0x${string}` {
  const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey!;
  return bytesToHex(key);
}

/**
 * A keystore v3 JSON of `key` (scrypt with a small N so tests stay fast; wallets use 2^18), in
 * geth's one-line form or pretty-printed.
 */
export function keystoreJson(key: `0x${string}`, pretty = false): string {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const n = 1024;
  const derived = scryptSync('correct horse battery staple', salt, 32, { N: n, r: 8, p: 1 });
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(toBytes(key)), cipher.final()]);
  const mac = keccak256(concat([derived.subarray(16, 32), ciphertext]));
  const v3 = {
    address: privateKeyToAddress(key).slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: ciphertext.toString('hex'),
      cipherparams: { iv: iv.toString('hex') },
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n, p: 1, r: 8, salt: salt.toString('hex') },
      mac: mac.slice(2),
    },
    id: randomUUID(),
    version: 3,
  };
  return JSON.stringify(v3, null, pretty ? 2 : undefined) + '\n';
}
