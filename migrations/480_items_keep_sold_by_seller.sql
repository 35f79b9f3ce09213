-- The trigger of migration 478 checked a deleted item's orders by `item_id` alone, which no index
-- leads with: a scan of every order while it holds SHARE locks on orders and x402_payments, so
-- purchases waited for it. An order's seller is its item's (the purchase writes both from the item
-- in one statement), so the seller's index (`orders_seller`) finds them: that seller's orders only.
create or replace function items_keep_sold() returns trigger language plpgsql as $$
begin
  lock table x402_payments, orders in share mode;
  if exists (select 1 from orders where seller_id = old.seller_id and item_id = old.id) then
    raise exception 'item % has orders', old.id using errcode = '23503';
  end if;
  return old;
end $$;
