import type { Hex } from 'viem';
import type { ScanAttestation } from '../wire/previews.js';
import type { CatalogClient } from './catalog.js';

/**
 * Checks a signed scan report (issue 29) as a buyer would, with viem alone: the EIP-712 signature
 * is one of the marketplace's attestation keys' (`signers`: its current address and the retired
 * ones that still sign stored reports, from /api/v1/skills), the statement is about this item,
 * and, once downloaded (`sha256`), it names the archive that was downloaded. Returns what is
 * wrong, or undefined. viem loads at the first check (about 340 modules): the MCP server's start,
 * which imports this for its buying tools, does not wait for it.
 */
export async function scanReportProblem(
  a: ScanAttestation,
  expected: { signers: readonly string[]; itemId: string; sha256?: string | undefined },
): Promise<string | undefined> {
  const { isAddressEqual, verifyTypedData } = await import('viem');
  if (!expected.signers.some((s) => isAddressEqual(a.signer as Hex, s as Hex)))
    return `signed by ${a.signer}, which is not one of the marketplace's published attestation addresses (${expected.signers.join(', ')})`;
  const m = a.typed_data.message;
  if (a.item_id !== expected.itemId || m.itemId !== expected.itemId)
    return `it is about item ${m.itemId}`;
  if (
    expected.sha256 !== undefined &&
    m.archiveSha256.toLowerCase() !== `0x${expected.sha256.toLowerCase()}`
  )
    return `it names archive ${m.archiveSha256}, not the downloaded 0x${expected.sha256}`;
  const valid = await verifyTypedData({
    address: a.signer as Hex,
    ...a.typed_data,
    message: { ...m, archiveSize: BigInt(m.archiveSize), scannedAt: BigInt(m.scannedAt) },
    signature: a.signature as Hex,
  } as Parameters<typeof verifyTypedData>[0]);
  return valid ? undefined : 'its signature does not verify';
}

/**
 * scanReportProblem against the signers the marketplace publishes now: the list is read once, and
 * read again when a report names any signer but its current one (the key was rotated since it was
 * read, or a retired key was withdrawn: see src/domain/scan/signers.ts `withdrawSigner`).
 */
export async function publishedScanReportProblem(
  catalog: Pick<CatalogClient, 'attestationSigners'>,
  a: ScanAttestation,
  expected: { itemId: string; sha256?: string | undefined },
): Promise<string | undefined> {
  const { isAddressEqual } = await import('viem');
  let signers = await catalog.attestationSigners();
  // not the current key: read the list again, as a rotation since may have added it, or the
  // marketplace may have withdrawn it (a retired key read earlier must not vouch for a report)
  if (!signers[0] || !isAddressEqual(a.signer as Hex, signers[0] as Hex))
    signers = await catalog.attestationSigners({ fresh: true });
  return scanReportProblem(a, { ...expected, signers });
}
