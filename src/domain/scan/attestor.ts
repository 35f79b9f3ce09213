import { getAddress, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  ATTESTATION_DOMAIN,
  ATTESTATION_PRIMARY_TYPE,
  ATTESTATION_TYPES,
  type AttestationMessage,
} from '../../wire/previews.js';

/**
 * The signed scan report (issue 29): when a listing becomes active the marketplace signs, as
 * EIP-712 typed data with its attestation key, the archive's SHA-256 and size, the item id, the
 * seller's address, the scanner's version and rule-set hash, the verdict and the time. Anyone
 * verifies it with viem's `verifyTypedData` against the address published in /api/v1/skills. The
 * statement is kept without a foreign key: it outlives a takedown, a deletion and the purge.
 */
export class Attestor {
  private readonly account: PrivateKeyAccount;

  constructor(privateKey: Hex) {
    this.account = privateKeyToAccount(privateKey);
  }

  get address(): `0x${string}` {
    return this.account.address;
  }

  /** An address as the statement writes it (EIP-55 checksum). */
  checksum(address: string): `0x${string}` {
    return getAddress(address);
  }

  async sign(message: AttestationMessage): Promise<Hex> {
    return this.account.signTypedData({
      domain: ATTESTATION_DOMAIN,
      types: ATTESTATION_TYPES,
      primaryType: ATTESTATION_PRIMARY_TYPE,
      message: {
        ...message,
        archiveSha256: message.archiveSha256 as Hex,
        ruleSetHash: message.ruleSetHash as Hex,
        seller: message.seller as Hex,
        archiveSize: BigInt(message.archiveSize),
        scannedAt: BigInt(message.scannedAt),
      },
    });
  }
}
