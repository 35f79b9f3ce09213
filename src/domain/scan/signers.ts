import type { Db, Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { recordAudit } from '../operator/audit.js';

/*
 * The keys that signed scan reports here (migration 450). A report keeps the signer it was signed
 * with, so after the attestation key changes the service publishes its retired signers beside the
 * current one, and a buyer accepts a report signed by any of them. A retired signer stays
 * published while a stored report still carries its signature: once `npm run previews` has signed
 * the active listings again with the new key, only reports of listings no longer active keep it.
 * An operator can withdraw a retired signer (migration 452): it is published no more, so the
 * reports it signed stop verifying for buyers.
 */

/** Records the signing key, in the transaction that stores its first report (no write after). */
export async function recordSigner(tx: Db, address: string): Promise<void> {
  await tx`insert into attestation_signers (address) values (${address})
           on conflict (address) do nothing`;
}

/**
 * Earlier signing keys that still sign a stored report (never `current`, never a withdrawn one),
 * oldest first.
 */
export async function retiredSigners(sql: Db, current: string): Promise<string[]> {
  const rows = await sql<{ address: string }[]>`
    select a.address from attestation_signers a
    where lower(a.address) <> lower(${current}) and a.withdrawn_at is null
      and exists (select 1 from scan_attestations s where s.signer = a.address)
    order by a.first_signed_at, a.address`;
  return rows.map((r) => r.address);
}

/** Withdrawals made by this process: a cached list of retired signers older than one is stale. */
let withdrawals = 0;
export const signerWithdrawals = (): number => withdrawals;

export interface SignerWithdrawal {
  address: string;
  withdrawn_at: string;
  /** Stored reports it signed: they no longer verify (`npm run previews` re-signs active ones). */
  reports: number;
}

/**
 * Withdraws a retired attestation key (`npm run attestation:withdraw -- <address>`, or the
 * operator API): it leaves `retired_signers` at once (each process re-reads the list within a
 * minute), so a report it signed no longer verifies for a buyer, and the MCP server refuses to
 * pay for such a listing. The key signing now cannot be withdrawn: rotate ATTESTATION_PRIVATE_KEY
 * first. Idempotent (the first withdrawal's time stands); audited.
 */
export async function withdrawSigner(
  sql: Sql,
  address: string,
  current: string,
  actor: string,
): Promise<SignerWithdrawal> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new AppError('invalid_address', { message: 'an attestation key is 0x + 40 hex' });
  if (address.toLowerCase() === current.toLowerCase())
    throw new AppError('invalid_request', {
      message:
        'this is the key signing reports now: set a new ATTESTATION_PRIVATE_KEY, restart, and withdraw this one then',
    });
  const result = await sql.begin(async (tx) => {
    const [row] = await tx<{ address: string; withdrawnAt: Date; fresh: boolean }[]>`
      update attestation_signers set withdrawn_at = coalesce(withdrawn_at, now())
      where lower(address) = lower(${address})
      returning address, withdrawn_at, withdrawn_at = now() as fresh`;
    if (!row)
      throw new AppError('not_found', {
        message: 'no attestation key with this address ever signed a report here',
      });
    const [count] = await tx<{ n: number }[]>`
      select count(*)::int as n from scan_attestations where signer = ${row.address}`;
    const n = count!.n;
    if (row.fresh)
      await recordAudit(tx, {
        actor,
        action: 'attestation.withdraw',
        target: row.address,
        detail: { reports: n },
      });
    return { address: row.address, withdrawn_at: row.withdrawnAt.toISOString(), reports: n };
  });
  withdrawals++;
  return result;
}
