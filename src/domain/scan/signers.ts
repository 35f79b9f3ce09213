import type { Db } from '../../db/index.js';

/*
 * The keys that signed scan reports here (migration 450). A report keeps the signer it was signed
 * with, so after the attestation key changes the service publishes its retired signers beside the
 * current one, and a buyer accepts a report signed by any of them. A retired signer stays
 * published while a stored report still carries its signature: once `npm run previews` has signed
 * the active listings again with the new key, only reports of listings no longer active keep it.
 */

/** Records the signing key, in the transaction that stores its first report (no write after). */
export async function recordSigner(tx: Db, address: string): Promise<void> {
  await tx`insert into attestation_signers (address) values (${address})
           on conflict (address) do nothing`;
}

/** Earlier signing keys that still sign a stored report (never `current`), oldest first. */
export async function retiredSigners(sql: Db, current: string): Promise<string[]> {
  const rows = await sql<{ address: string }[]>`
    select a.address from attestation_signers a
    where lower(a.address) <> lower(${current})
      and exists (select 1 from scan_attestations s where s.signer = a.address)
    order by a.first_signed_at, a.address`;
  return rows.map((r) => r.address);
}
