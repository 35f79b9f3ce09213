-- An order's item and seller were two foreign keys, so every purchase ran two referential checks
-- (each a query and a row lock: the item's row and the seller's account row, the latter shared by
-- every sale of that seller). One key on the pair says more with one check: the order's item
-- exists and its seller IS the item's seller (before, any existing account was accepted), and the
-- seller's account exists through the item's own key (items.seller_id references agents, with no
-- cascade): an account cannot go while an item of it stands, and an item cannot go while an order
-- of it stands. (id, seller_id) is unique because id is: the index exists only to be referenced.
alter table items add constraint items_id_seller_id_key unique (id, seller_id);
alter table orders add constraint orders_item_id_seller_id_fkey
  foreign key (item_id, seller_id) references items (id, seller_id);
alter table orders drop constraint if exists orders_item_id_fkey;
alter table orders drop constraint if exists orders_seller_id_fkey;
