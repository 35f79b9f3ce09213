-- Selling: scan jobs, operator-only scan findings, the rejected-archive registry, content
-- fingerprints for near-duplicate detection, and the uniqueness of listed archives.

-- An archive is listed by at most one listing at a time (pending, scanning or active), whoever
-- the seller: two concurrent uploads of the same bytes cannot both succeed (spec 4.3 rule 3).
create unique index items_listed_sha256 on items (archive_sha256)
  where status in ('pending_scan', 'scanning', 'active');

-- Hidden from the seller's inventory once the retention cleanup ran but an order still needs it.
alter table items add column purged_at timestamptz;

-- Background jobs (scan of one item, purge of deleted items). Claimed with FOR UPDATE SKIP LOCKED;
-- a running job whose lease expired (crashed worker) is claimed again.
create table jobs (
  id           bigint generated always as identity primary key,
  kind         text not null check (kind in ('scan')),
  item_id      uuid references items (id) on delete cascade,
  state        text not null default 'queued' check (state in ('queued', 'running', 'done', 'failed')),
  attempts     int not null default 0,
  max_attempts int not null check (max_attempts >= 1),
  run_after    timestamptz not null default now(),
  locked_until timestamptz,
  last_error   text,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
create unique index jobs_one_open_scan on jobs (item_id) where kind = 'scan' and state in ('queued', 'running');
create index jobs_due on jobs (run_after) where state = 'queued';
create index jobs_leased on jobs (locked_until) where state = 'running';

-- The outcome of each scan attempt with its detailed findings: for operators only, never served.
create table scan_results (
  id          bigint generated always as identity primary key,
  item_id     uuid not null references items (id) on delete cascade,
  attempt     int not null,
  verdict     text not null check (verdict in ('active', 'rejected', 'error')),
  reason      text not null,
  findings    jsonb not null default '[]',
  stats       jsonb not null default '{}',
  duration_ms int not null,
  created_at  timestamptz not null default now()
);
create index scan_results_item on scan_results (item_id, created_at desc);

-- Archives the scan has ever refused on their content. Survives the purge of the item row:
-- such bytes can never be listed again by anyone (spec 4.3 rule 3).
create table rejected_archives (
  archive_sha256 text primary key check (archive_sha256 ~ '^[0-9a-f]{64}$'),
  item_id        uuid,
  reason         text not null,
  rejected_at    timestamptz not null default now()
);

-- MinHash signature of an item's meaningful lines, with LSH band keys for candidate lookup.
create table item_fingerprints (
  item_id    uuid primary key references items (id) on delete cascade,
  minhash    int[] not null,
  bands      text[] not null,
  line_count int not null,
  created_at timestamptz not null default now()
);
create index item_fingerprints_bands on item_fingerprints using gin (bands);
