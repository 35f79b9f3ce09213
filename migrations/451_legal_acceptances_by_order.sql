-- A purchase's legal audit row is found only by its order (one per order, `order_id` unique since
-- 010); its own `id` was never read, yet every purchase drew it from gen_random_uuid() (a read of
-- /dev/urandom in the embedded database) and inserted it into a second b-tree at a random place:
-- about a tenth of the index entries a repeat purchase writes. The order's id is now the primary
-- key and the unused id goes; what the row records, and one row per order, stay as they were.
alter table legal_acceptances drop column id;
alter table legal_acceptances drop constraint legal_acceptances_order_id_key;
alter table legal_acceptances add constraint legal_acceptances_pkey primary key (order_id);
