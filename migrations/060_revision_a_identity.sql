-- Revision A (API keys) as a deployment mode: SIWE challenges, wallet bindings and linked wallets,
-- hashed API keys, and the rule "payable chains follow linked wallets".

-- Which contract this deployment follows, written by every process that migrates at start-up
-- (src/runtime.ts). Rules that differ per revision read it here, in SQL, once.
create table deployment_settings (
  name  text primary key,
  value text not null
);
insert into deployment_settings (name, value) values ('contract_revision', 'B');

alter table agents add column country text check (country ~ '^[A-Z]{2}$');

-- Every address bound to an agent: the one that created it (agents.address), wallets it linked,
-- and the controlling EOA of a smart account it linked. The primary key is the data-layer rule
-- "one address is one agent" (spec 5.1 rule 4): two registrations racing for one wallet cannot both
-- succeed.
create table wallet_bindings (
  address    text primary key check (address ~ '^0x[0-9a-f]{40}$'),
  agent_id   uuid not null references agents (id),
  kind       text not null check (kind in ('wallet', 'controller')),
  created_at timestamptz not null default now(),
  unique (address, agent_id)
);
create index wallet_bindings_agent on wallet_bindings (agent_id);
insert into wallet_bindings (address, agent_id, kind) select address, id, 'wallet' from agents;

-- The creating address of every agent is bound too, whichever way the agent was made (a first
-- payment, registration, the demo). A binding held by another agent fails the insert.
create function bind_agent_address() returns trigger language plpgsql as $$
begin
  insert into wallet_bindings (address, agent_id, kind) values (new.address, new.id, 'wallet')
  on conflict (address) do nothing;
  if not exists (select 1 from wallet_bindings where address = new.address and agent_id = new.id) then
    raise exception 'wallet % is bound to another agent', new.address using errcode = '23505';
  end if;
  return new;
end $$;
create trigger agents_bind_address after insert on agents
  for each row execute function bind_agent_address();

-- Wallets linked per chain (Revision A): proven by a SIWE signature at registration or linking.
-- In Revision A a seller is paid only on chains where it has one.
create table linked_wallets (
  address    text not null,
  chain      text not null check (chain in ('base', 'polygon')),
  agent_id   uuid not null,
  created_at timestamptz not null default now(),
  primary key (address, chain),
  foreign key (address, agent_id) references wallet_bindings (address, agent_id)
);
create index linked_wallets_agent on linked_wallets (agent_id, chain);

-- One SIWE (EIP-4361) challenge: single use, bound to its action, address and chain, 5 minutes.
create table siwe_challenges (
  nonce      text primary key,
  address    text not null check (address ~ '^0x[0-9a-f]{40}$'),
  chain      text not null check (chain in ('base', 'polygon')),
  action     text not null check (action in ('register', 'link-wallet', 'rotate-key')),
  message    text not null,
  expires_at timestamptz not null,
  used_at    timestamptz,
  created_at timestamptz not null default now()
);
create index siwe_challenges_expiry on siwe_challenges (expires_at);

-- One API key per agent, stored only as a SHA-256 hash of its secret part. `key_id` is the public
-- lookup half of the key; the secret half is compared in constant time. Rotation replaces the row.
create table api_keys (
  agent_id    uuid primary key references agents (id),
  key_id      text not null unique,
  secret_hash bytea not null,
  created_at  timestamptz not null default now()
);

-- "Payable chains" (spec 2.1), still defined once: Revision B needs the seller's acceptance and a
-- payout address; Revision A also needs a wallet of the seller linked on that chain.
create or replace view payable_chains as
  select p.agent_id, p.chain, p.address as pay_to
  from payout_addresses p
  join agents a on a.id = p.agent_id
  where p.chain = any (a.sales_chains)
    and (coalesce((select value from deployment_settings where name = 'contract_revision'), 'B') = 'B'
         or exists (select 1 from linked_wallets w where w.agent_id = p.agent_id and w.chain = p.chain));
