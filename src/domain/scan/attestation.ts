import type { Db } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { scannerIdentity } from '../../scan/version.js';
import {
  ATTESTATION_DOMAIN,
  ATTESTATION_PRIMARY_TYPE,
  ATTESTATION_TYPES,
  type AttestationMessage,
  type ScanAttestation,
} from '../../wire/previews.js';
import type { Attestor } from './attestor.js';
import { recordSigner } from './signers.js';

/*
 * The signed scan report (issue 29), stored and read here; the key and the signing are in
 * ./attestor.ts (viem loads with the runtime, not with every importer of the scan job).
 */

/**
 * Signs and stores the statement of an item turning active, inside the activation's transaction
 * (the item, its archive and its seller are read there). An item already attested keeps its
 * first statement (a retried activation signs nothing new), unless `resign`: then a statement
 * signed by another key (before a key rotation) is replaced by this one (backfill.ts, after it
 * scanned the archive again), so reports signed by a retired key age out.
 */
export async function attestActivation(
  tx: Db,
  attestor: Attestor,
  itemId: string,
  opts: { resign?: boolean } = {},
): Promise<void> {
  const [row] = await tx<{ archiveSha256: string; archiveSize: number; seller: string }[]>`
    select i.archive_sha256, i.archive_size::float8 as archive_size, a.address as seller
    from items i join agents a on a.id = i.seller_id where i.id = ${itemId}`;
  if (!row) return;
  const scanner = scannerIdentity();
  const message: AttestationMessage = {
    itemId,
    archiveSha256: `0x${row.archiveSha256}`,
    archiveSize: row.archiveSize,
    seller: attestor.checksum(row.seller),
    scannerVersion: scanner.version,
    ruleSetHash: scanner.ruleSetHash,
    verdict: 'accept',
    scannedAt: Math.floor(Date.now() / 1000),
  };
  const signature = await attestor.sign(message);
  await recordSigner(tx, attestor.address);
  if (opts.resign)
    await tx`insert into scan_attestations (item_id, signer, message, signature)
             values (${itemId}, ${attestor.address}, ${tx.json(message)}, ${signature.toLowerCase()})
             on conflict (item_id) do update
               set signer = excluded.signer, message = excluded.message,
                   signature = excluded.signature, created_at = now()
               where lower(scan_attestations.signer) <> lower(excluded.signer)`;
  else
    await tx`insert into scan_attestations (item_id, signer, message, signature)
             values (${itemId}, ${attestor.address}, ${tx.json(message)}, ${signature.toLowerCase()})
             on conflict (item_id) do nothing`;
}

/** A statement as stored (replaced only when signed again after a key rotation). */
export interface StoredAttestation {
  signer: string;
  message: AttestationMessage;
  signature: string;
}

/** The wire form of a stored statement (`status` from the item as it is now). */
export function attestationOf(
  row: StoredAttestation & { itemId: string; active: boolean },
): ScanAttestation {
  return {
    item_id: row.itemId,
    status: row.active ? 'active' : 'no_longer_active',
    signer: row.signer,
    typed_data: {
      domain: { ...ATTESTATION_DOMAIN },
      types: {
        ScanAttestation: ATTESTATION_TYPES.ScanAttestation.map((f) => ({ ...f })),
      },
      primaryType: ATTESTATION_PRIMARY_TYPE,
      message: row.message,
    },
    signature: row.signature,
  };
}

/**
 * `GET /api/v1/items/{uuid}/attestation`: public, and answered for every item that was ever
 * attested, active or not (`status` says which); 404 only when no statement exists.
 */
export async function getAttestation(sql: Db, itemId: string): Promise<ScanAttestation> {
  const found = await findAttestation(sql, itemId);
  if (!found) throw notFound('attestation_not_found');
  return found;
}

/** The statement of an item, if it has one (the purchase result carries it). */
export async function findAttestation(
  sql: Db,
  itemId: string,
): Promise<ScanAttestation | undefined> {
  const [row] = await sql<
    {
      itemId: string;
      signer: string;
      message: AttestationMessage;
      signature: string;
      active: boolean;
    }[]
  >`
    select s.item_id, s.signer, s.message, s.signature,
           coalesce((select i.status = 'active' from items i where i.id = s.item_id), false) as active
    from scan_attestations s where s.item_id = ${itemId}`;
  return row && attestationOf(row);
}
