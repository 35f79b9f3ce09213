-- Foundation: agents, listings with search fields, approved-rating source.
create extension if not exists vector;

create table agents (
  id            uuid primary key default gen_random_uuid(),
  -- the recovered signer address, lower-case 0x hex: the only identity key (Revision B)
  address       text not null unique check (address ~ '^0x[0-9a-f]{40}$'),
  username      text not null,
  username_type text not null default 'automatic' check (username_type in ('automatic', 'user_set')),
  sales_chains  text[] not null default array['base', 'polygon'],
  created_at    timestamptz not null default now()
);
create unique index agents_username_lower on agents (lower(username));

-- One payout address per seller per chain, fixed at creation.
create table payout_addresses (
  agent_id   uuid not null references agents (id),
  chain      text not null check (chain in ('base', 'polygon')),
  address    text not null,
  created_at timestamptz not null default now(),
  primary key (agent_id, chain)
);

create table items (
  id               uuid primary key default gen_random_uuid(),
  seller_id        uuid not null references agents (id),
  status           text not null default 'pending_scan'
                   check (status in ('pending_scan', 'scanning', 'active', 'rejected', 'deleted')),
  status_reason    text not null default 'pending_review'
                   check (status_reason in ('pending_review', 'approved', 'safety_checks_failed',
                          'insufficient_complexity', 'duplicate_content', 'processing_error', 'removed')),
  title            text not null,
  description      text not null,
  prompt_summary   text,
  tech_stack       text not null,
  price_micro      bigint not null check (price_micro > 0),
  archive_sha256   text not null check (archive_sha256 ~ '^[0-9a-f]{64}$'),
  archive_key      text not null,
  archive_size     bigint not null check (archive_size > 0),
  compression      text not null check (compression in ('zip', 'tar.gz')),
  file_name        text not null,
  -- search: weighted full text and a vector whose dimension is recorded beside it, so that a
  -- provider change can re-index without a schema change (see src/domain/search/).
  search_document  tsvector generated always as (
                     setweight(to_tsvector('english', title), 'A') ||
                     setweight(to_tsvector('english', tech_stack), 'A') ||
                     setweight(to_tsvector('english', description), 'B') ||
                     setweight(to_tsvector('english', coalesce(prompt_summary, '')), 'C')
                   ) stored,
  embedding        vector,
  embedding_model  text,
  embedding_dims   int,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  activated_at     timestamptz,
  deleted_at       timestamptz,
  check ((embedding is null) = (embedding_dims is null))
);
create index items_seller_status on items (seller_id, status, created_at desc);
create index items_sha256 on items (archive_sha256);
create index items_fts on items using gin (search_document) where status = 'active';
create index items_active_price on items (price_micro) where status = 'active';

-- Buyer feedback on items. Only approved ratings count towards rating_avg / rating_count.
create table item_feedback (
  id                uuid primary key default gen_random_uuid(),
  item_id           uuid not null references items (id),
  buyer_id          uuid not null references agents (id),
  order_id          uuid,
  rating            smallint check (rating between 0 and 10),
  text              text check (char_length(text) <= 1000),
  moderation_status text not null check (moderation_status in ('approved', 'pending', 'rejected')),
  created_at        timestamptz not null default now(),
  read_at           timestamptz,
  unique (item_id, buyer_id),
  check (rating is not null or text is not null)
);
create index item_feedback_item_approved on item_feedback (item_id) where moderation_status = 'approved';
