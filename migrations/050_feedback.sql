-- Feedback (spec 2.5, 2.6, 3.2, 3.3): moderation time of item feedback, the seller inbox's read
-- order, and platform feedback with its rolling per-wallet limit.

alter table item_feedback add column moderated_at timestamptz;

-- The seller inbox reads approved feedback of one seller's items by creation time.
create index item_feedback_approved_created on item_feedback (item_id, created_at, id)
  where moderation_status = 'approved';
-- Operators list pending feedback oldest first.
create index item_feedback_pending on item_feedback (created_at) where moderation_status = 'pending';

create table platform_feedback (
  id         uuid primary key default gen_random_uuid(),
  -- the verified signer (lower-case 0x hex); any wallet may send, registered or not
  wallet     text not null check (wallet ~ '^0x[0-9a-f]{40}$'),
  -- the sender's account and username when one exists; sending never creates an account
  agent_id   uuid references agents (id),
  username   text,
  text       text not null check (char_length(text) between 1 and 1000),
  contact    text check (char_length(contact) <= 120),
  created_at timestamptz not null default now()
);
create index platform_feedback_wallet_created on platform_feedback (wallet, created_at desc);
