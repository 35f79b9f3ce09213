-- Every key that signed a scan report here (src/domain/scan/signers.ts), recorded as it signs:
-- after ATTESTATION_PRIVATE_KEY changes, the service publishes its retired signers beside the
-- current one (scan_attestation.retired_signers in /api/v1/skills) for as long as a stored report
-- carries their signature, so a buyer can still verify reports signed before the rotation
-- (the one-off `npm run previews` signs the active listings' reports again with the new key).
-- Seeded from the reports already stored: every one of them was signed by a key of this service.
create table attestation_signers (
  address        text primary key check (address ~ '^0x[0-9a-fA-F]{40}$'),
  first_signed_at timestamptz not null default now()
);
insert into attestation_signers (address, first_signed_at)
  select signer, min(created_at) from scan_attestations group by signer;
-- "does a stored report still carry this signer's signature" (one probe per recorded signer)
create index scan_attestations_signer on scan_attestations (signer);
