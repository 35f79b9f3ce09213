-- Payouts (spec 1.9, 2.7): each payout address carries the allocation fixed when it was created,
-- a payout contract starts empty, forwarded balances are recorded, and one lease per (chain,
-- payout address) keeps two workers from forwarding the same balance.

alter table payout_addresses
  add column seller_bps   int not null default 9500,
  add column platform_bps int not null default 500,
  add constraint payout_addresses_allocation
    check (seller_bps >= 0 and platform_bps >= 0 and seller_bps + platform_bps = 10000);

-- The payout job and the dev ledger find a payout address by chain and address.
create index payout_addresses_chain_address on payout_addresses (chain, lower(address));

-- The built-in facilitator's dev ledger gives a never-seen address a start balance; a payout
-- contract is created empty, so its ledger row is opened at 0 with the address (and for the
-- addresses that already exist and were never paid).
create function payout_address_opens_empty() returns trigger language plpgsql as $$
begin
  insert into dev_ledger_balances (network, address, balance_micro)
  values (case new.chain when 'base' then 'eip155:8453' when 'polygon' then 'eip155:137' end,
          lower(new.address), 0)
  on conflict do nothing;
  return new;
end
$$;
create trigger payout_addresses_open_empty after insert on payout_addresses
  for each row execute function payout_address_opens_empty();
insert into dev_ledger_balances (network, address, balance_micro)
  select case chain when 'base' then 'eip155:8453' when 'polygon' then 'eip155:137' end, lower(address), 0
  from payout_addresses
  on conflict do nothing;

-- One row per forwarded balance: what the payout contract paid out, to whom, in which transaction.
create table payouts (
  id             uuid primary key default gen_random_uuid(),
  agent_id       uuid not null references agents (id),
  chain          text not null check (chain in ('base', 'polygon')),
  payout_address text not null,
  tx_hash        text not null,
  gross_raw      numeric(78, 0) not null check (gross_raw > 0),
  seller_raw     numeric(78, 0) not null check (seller_raw >= 0),
  platform_raw   numeric(78, 0) not null check (platform_raw >= 0),
  paid_at        timestamptz not null default now(),
  unique (chain, tx_hash),
  check (seller_raw + platform_raw <= gross_raw)
);
create index payouts_agent_paid on payouts (agent_id, paid_at desc, id);

-- A lease per payout address and chain: the payout job forwards a balance only while it holds it.
create table payout_leases (
  chain          text not null,
  payout_address text not null,
  holder         uuid not null,
  leased_until   timestamptz not null,
  primary key (chain, payout_address)
);
