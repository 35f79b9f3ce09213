import { verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it, vi } from 'vitest';
import { Attestor } from '../../src/domain/scan/attestor.js';
import {
  ATTESTATION_DOMAIN,
  ATTESTATION_PRIMARY_TYPE,
  ATTESTATION_TYPES,
} from '../../src/wire/previews.js';

/**
 * Issue 25: the attestation key's account is derived at its first use, not as the service starts
 * (the first curve multiplication in a process builds the curve library's tables, ~50 ms of a
 * start); an unusable key still stops the start.
 */
describe('the attestor', () => {
  it('derives its account at the first use, once, and signs what verifies against its address', async () => {
    // the real derivation, counted
    const derive = vi.fn(privateKeyToAccount);
    const key = generatePrivateKey();
    const attestor = new Attestor(key, derive);
    expect(derive).not.toHaveBeenCalled();
    const message = {
      itemId: '7d3c6f4e-8a4b-4c1e-9f0a-2b5d6e7f8a9b',
      archiveSha256: `0x${'ab'.repeat(32)}`,
      archiveSize: 1234,
      seller: `0x${'12'.repeat(20)}`,
      scannerVersion: '1',
      ruleSetHash: `0x${'cd'.repeat(32)}`,
      verdict: 'accept' as const,
      scannedAt: 1_790_000_000,
    };
    const signature = await attestor.sign(message);
    expect(attestor.address).toBe(derive.mock.results[0]!.value.address);
    expect(derive).toHaveBeenCalledTimes(1);
    const valid = await verifyTypedData({
      address: attestor.address,
      domain: ATTESTATION_DOMAIN,
      types: ATTESTATION_TYPES,
      primaryType: ATTESTATION_PRIMARY_TYPE,
      message: {
        ...message,
        archiveSha256: message.archiveSha256 as `0x${string}`,
        ruleSetHash: message.ruleSetHash as `0x${string}`,
        seller: message.seller as `0x${string}`,
        archiveSize: BigInt(message.archiveSize),
        scannedAt: BigInt(message.scannedAt),
      },
      signature,
    });
    expect(valid).toBe(true);
  });

  it('refuses a key that is no secp256k1 private key as it is made', () => {
    for (const bad of [
      `0x${'00'.repeat(32)}`,
      `0x${'ff'.repeat(32)}`,
      '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141',
      '0x1234',
    ])
      expect(() => new Attestor(bad as `0x${string}`)).toThrow(/not a secp256k1 private key/);
    expect(
      () => new Attestor('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140'),
    ).not.toThrow();
  });
});
