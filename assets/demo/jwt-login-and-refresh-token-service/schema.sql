create table users (
  id bigserial primary key,
  email text unique not null,
  password_hash text not null,
  failed_logins int not null default 0,
  locked_until timestamptz
);
create table refresh_tokens (
  token_hash text primary key,
  user_id bigint not null references users(id),
  family uuid not null,
  expires_at timestamptz not null,
  revoked boolean not null default false
);
create table audit_log (
  id bigserial primary key,
  user_id bigint,
  event text not null,
  at timestamptz not null default now()
);
