-- Issue 29. The buyer's preview of a listing, computed by the scan job while it walks the archive
-- (src/scan/preview.ts), one row per item, absent when it could not be computed. The compact
-- summary's fields sit in columns beside the whole preview: search results carry them and the
-- `license` filter reads them through the index.
create table item_previews (
  item_id     uuid primary key references items (id) on delete cascade,
  preview     jsonb not null,
  files       int not null check (files >= 0),
  lines       bigint not null check (lines >= 0),
  -- the top three languages by lines of code
  languages   text[] not null,
  -- SPDX id or expression, 'NOASSERTION' (a licence file not recognised) or 'none'
  license     text not null,
  computed_at timestamptz not null default now()
);
create index item_previews_license on item_previews (lower(license));

-- The signed scan report (EIP-712 typed data, src/domain/scan/attestation.ts) issued when a listing
-- became active. No foreign key on purpose: a statement stays verifiable after its listing was
-- taken down, deleted or purged; the route then says it is no longer active.
create table scan_attestations (
  item_id    uuid primary key,
  signer     text not null check (signer ~ '^0x[0-9a-fA-F]{40}$'),
  message    jsonb not null,
  signature  text not null check (signature ~ '^0x[0-9a-f]+$'),
  created_at timestamptz not null default now()
);
