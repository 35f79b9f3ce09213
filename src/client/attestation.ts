import { isAddressEqual, verifyTypedData, type Hex } from 'viem';
import type { ScanAttestation } from '../wire/previews.js';

/**
 * Checks a signed scan report (issue 29) as a buyer would, with viem alone: the EIP-712 signature
 * is the marketplace's attestation key's (`signer`, from /api/v1/skills), the statement is about
 * this item, and it names the archive that was downloaded. Returns what is wrong, or undefined.
 */
export async function scanReportProblem(
  a: ScanAttestation,
  expected: { signer: string; itemId: string; sha256: string },
): Promise<string | undefined> {
  if (!isAddressEqual(a.signer as Hex, expected.signer as Hex))
    return `signed by ${a.signer}, not the marketplace's attestation address ${expected.signer}`;
  const m = a.typed_data.message;
  if (m.itemId !== expected.itemId) return `it is about item ${m.itemId}`;
  if (m.archiveSha256.toLowerCase() !== `0x${expected.sha256.toLowerCase()}`)
    return `it names archive ${m.archiveSha256}, not the downloaded 0x${expected.sha256}`;
  const valid = await verifyTypedData({
    address: a.signer as Hex,
    ...a.typed_data,
    message: { ...m, archiveSize: BigInt(m.archiveSize), scannedAt: BigInt(m.scannedAt) },
    signature: a.signature as Hex,
  } as Parameters<typeof verifyTypedData>[0]);
  return valid ? undefined : 'its signature does not verify';
}
