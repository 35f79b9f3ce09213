-- An operator withdraws a retired attestation key (a leaked or doubted one): it drops out of
-- scan_attestation.retired_signers at once, so reports it signed stop verifying for buyers
-- (src/domain/scan/signers.ts `withdrawSigner`). Kept, not deleted: recordSigner's insert must
-- not bring a withdrawn key back, and the row says when it was withdrawn.
alter table attestation_signers add column withdrawn_at timestamptz;
