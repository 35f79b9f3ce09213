-- The operator console (issue 26): sign-in sessions and the audit trail of every operator action.

-- One row per signed-in browser. Only the SHA-256 of the cookie's random id is kept, so a leaked
-- table signs nobody in; a session ends at its expiry or at sign-out (row deleted).
create table operator_sessions (
  id_hash    text primary key check (id_hash ~ '^[0-9a-f]{64}$'),
  actor      text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index operator_sessions_expiry on operator_sessions (expires_at);

-- Who did what, when, to what, and why: written in the transaction of the action itself.
create table operator_audit (
  id     bigint generated always as identity primary key,
  at     timestamptz not null default now(),
  actor  text not null,
  action text not null,
  target text,
  reason text,
  detail jsonb not null default '{}'
);
create index operator_audit_at on operator_audit (at desc, id desc);
