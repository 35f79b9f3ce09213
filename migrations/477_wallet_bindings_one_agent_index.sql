-- A first-time buyer's account writes its wallet binding, and the binding wrote three index
-- entries: the address (the key: one address is one agent), (address, agent_id) (only so that a
-- linked wallet's key can name the pair) and agent_id (an agent's bindings). One unique index on
-- (agent_id, address) is both of the last two: a foreign key may name a unique index's columns in
-- any order, and agent_id leads, so an agent's bindings are found through it as before.
alter table linked_wallets drop constraint if exists linked_wallets_address_agent_id_fkey;
alter table wallet_bindings drop constraint if exists wallet_bindings_address_agent_id_key;
drop index if exists wallet_bindings_agent;
alter table wallet_bindings add constraint wallet_bindings_agent_id_address_key unique (agent_id, address);
alter table linked_wallets add constraint linked_wallets_address_agent_id_fkey
  foreign key (address, agent_id) references wallet_bindings (address, agent_id);

-- The account's own address is bound by this trigger; the check that the address is not another
-- agent's ran as a second query after every insert. It is needed only when the insert found the
-- address bound already (`found` is false): a binding just inserted is this agent's.
create or replace function bind_agent_address() returns trigger language plpgsql as $$
begin
  insert into wallet_bindings (address, agent_id, kind) values (new.address, new.id, 'wallet')
  on conflict (address) do nothing;
  if not found then
    if not exists (select 1 from wallet_bindings where address = new.address and agent_id = new.id) then
      raise exception 'wallet % is bound to another agent', new.address using errcode = '23505';
    end if;
  end if;
  return new;
end $$;
