-- An order named its item (and the item's seller) through a foreign key, so every purchase ran a
-- referential check: an SPI query and a key-share lock on the item's row, with its WAL record. The
-- purchase statement already reads the item in the same statement (`pre`: active, this seller,
-- this price) and writes nothing when it is not; what the key added was only that the item could
-- not be hard-deleted between that read and the commit. The only hard delete of a listing is the
-- retention purge, and it is now serialised against purchases instead (src/domain/listings/purge.ts:
-- it takes SHARE locks on x402_payments and orders, which a purchase, a claim and a completion
-- write, before it reads whether an order or an unresolved payment names the item): the purchase
-- pays nothing, the rare purge waits for the payments in flight.
alter table orders drop constraint if exists orders_item_id_seller_id_fkey;
-- (id, seller_id) was unique only to be referenced by that key.
alter table items drop constraint if exists items_id_seller_id_key;

-- A sold item still cannot be deleted, by the purge or anyone else: the same lock, then the check
-- (a fresh snapshot per statement in this volatile function: an order committed by a purchase that
-- held the lock first is seen). The error is the key's (23503), as before.
create function items_keep_sold() returns trigger language plpgsql as $$
begin
  lock table x402_payments, orders in share mode;
  if exists (select 1 from orders where item_id = old.id) then
    raise exception 'item % has orders', old.id using errcode = '23503';
  end if;
  return old;
end $$;
create trigger items_keep_sold before delete on items
  for each row execute function items_keep_sold();
