-- The built-in facilitator's dev ledger gives a never-seen address its start balance, and a payout
-- contract starts empty, so a trigger opened every new payout address's ledger row at 0 (migration
-- 051). That was two PL/pgSQL calls, two speculative inserts and two index entries in every
-- first-time buyer's purchase (its account's two payout addresses), on every deployment, the
-- ledger used or not: ~7 % of a first-time purchase's time in PGlite. A payout address's opening
-- balance is now worked out when the ledger first reads the address: 0 when it is a payout address
-- (its index on (chain, lower(address))), the start balance otherwise. Rows already opened stay;
-- a row is written the first time money moves, as for any address.
drop trigger if exists payout_addresses_open_empty on payout_addresses;
drop function if exists payout_address_opens_empty();

-- The balance a never-seen address opens with (`start`, or 0 for a payout address). Inlined by the
-- planner; used only where the address has no row yet (the second argument of a coalesce).
create function dev_ledger_opening(network text, address text, start bigint) returns bigint
  language sql stable as $$
  -- positional: in a SQL function a column of the same name would win over the argument
  select case when exists (
      select 1 from payout_addresses p
      where p.chain = case $1 when 'eip155:8453' then 'base' when 'eip155:137' then 'polygon' end
        and lower(p.address) = lower($2))
    then 0::bigint else $3 end
$$;
