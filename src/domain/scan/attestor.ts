import { getAddress, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  ATTESTATION_DOMAIN,
  ATTESTATION_PRIMARY_TYPE,
  ATTESTATION_TYPES,
  type AttestationMessage,
} from '../../wire/previews.js';

/** The order of secp256k1's group: a private key is a number from 1 to this, exclusive. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * The signed scan report (issue 29): when a listing becomes active the marketplace signs, as
 * EIP-712 typed data with its attestation key, the archive's SHA-256 and size, the item id, the
 * seller's address, the scanner's version and rule-set hash, the verdict and the time. Anyone
 * verifies it with viem's `verifyTypedData` against the address published in /api/v1/skills. The
 * statement is kept without a foreign key: it outlives a takedown, a deletion and the purge.
 */
export class Attestor {
  private made: PrivateKeyAccount | undefined;

  /**
   * The key's account is derived at its first use (a scan report signed, the address published),
   * not as the service starts: the first elliptic-curve multiplication in the process builds the
   * curve library's tables, ~50 ms of a start (issue 25).
   */
  constructor(
    private readonly privateKey: Hex,
    private readonly derive: (key: Hex) => PrivateKeyAccount = privateKeyToAccount,
  ) {
    // what the derivation would refuse, refused now: a start with an unusable key stops
    const k = /^0x[0-9a-fA-F]{64}$/.test(privateKey) ? BigInt(privateKey) : 0n;
    if (k <= 0n || k >= SECP256K1_ORDER)
      throw new Error('the attestation key is not a secp256k1 private key');
  }

  private get account(): PrivateKeyAccount {
    return (this.made ??= this.derive(this.privateKey));
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
