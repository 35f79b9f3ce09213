-- Payments (x402 v2): single-use authorization nonces, paid operations run once per nonce,
-- orders, legal acceptance audit, and the built-in local facilitator's dev ledger.

-- Every EIP-3009 authorization nonce the server ever accepted, paid or zero-value. The primary key
-- is the replay guard: two concurrent requests with one nonce cannot both insert.
create table x402_nonces (
  payer        text not null check (payer ~ '^0x[0-9a-f]{40}$'),
  nonce        text not null check (nonce ~ '^0x[0-9a-f]{64}$'),
  kind         text not null check (kind in ('identity', 'paid')),
  resource     text not null,
  valid_before timestamptz not null,
  created_at   timestamptz not null default now(),
  primary key (payer, nonce)
);
create index x402_nonces_identity_expiry on x402_nonces (valid_before) where kind = 'identity';

-- One row per paid authorization: the state machine that makes a paid operation happen at most
-- once per nonce (settling -> settled -> completed; pending / failed / released on the side).
create table x402_payments (
  id            uuid primary key default gen_random_uuid(),
  operation     text not null,
  resource      text not null,
  payer         text not null,
  nonce         text not null,
  network       text not null,
  asset         text not null,
  pay_to        text not null,
  amount_micro  bigint not null check (amount_micro > 0),
  valid_before  timestamptz not null,
  payload       jsonb not null,
  requirements  jsonb not null,
  context       jsonb not null,
  status        text not null check (status in ('settling', 'pending', 'settled', 'completed', 'failed', 'released')),
  transaction   text,
  settlement    jsonb,
  result        jsonb,
  error_code    text,
  error_reason  text,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  unique (payer, nonce)
);
create index x402_payments_unresolved on x402_payments (updated_at) where status in ('settling', 'pending', 'settled');

create table orders (
  id            uuid primary key,
  payment_id    uuid not null unique references x402_payments (id),
  item_id       uuid not null references items (id),
  buyer_id      uuid not null references agents (id),
  seller_id     uuid not null references agents (id),
  chain         text not null check (chain in ('base', 'polygon')),
  network       text not null,
  asset         text not null,
  pay_to        text not null,
  payer         text not null,
  amount_micro  bigint not null check (amount_micro > 0),
  transaction   text not null,
  status        text not null default 'completed' check (status in ('completed')),
  created_at    timestamptz not null default now(),
  completed_at  timestamptz not null default now()
);
create index orders_buyer_item on orders (buyer_id, item_id, completed_at desc);
create index orders_seller on orders (seller_id, completed_at desc);

-- Audit trail of legal acceptance (spec 4.1 acquire rule 6): what was accepted, by whom, when.
create table legal_acceptances (
  id              uuid primary key default gen_random_uuid(),
  order_id        uuid not null unique references orders (id),
  payer           text not null,
  policy_version  text not null,
  policy_url      text not null,
  license_version text not null,
  license_url     text not null,
  accepted_at     timestamptz not null
);

-- Built-in local facilitator: a dev ledger of USDC balances per network and the token's own
-- authorization state (a used nonce can never settle twice).
create table dev_ledger_balances (
  network       text not null,
  address       text not null,
  balance_micro bigint not null check (balance_micro >= 0),
  primary key (network, address)
);

create table dev_ledger_transfers (
  transaction   text primary key,
  network       text not null,
  asset         text not null,
  payer         text not null,
  pay_to        text not null,
  amount_micro  bigint not null,
  nonce         text not null,
  status        text not null check (status in ('confirmed', 'pending', 'failed')),
  created_at    timestamptz not null default now(),
  unique (network, asset, payer, nonce)
);
