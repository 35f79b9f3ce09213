-- A purchase writes its payment, its order and the order's legal audit row in ONE statement (the
-- buyer's agent is read or created by that same statement), so three foreign keys re-checked
-- what the statement itself had just written, each with a row lock on the referenced row: about a
-- fifth of the database's work per completion. Payments, orders and agents are never deleted, and
-- the unique keys that make a purchase happen once stay (orders.payment_id, legal_acceptances.order_id).
-- The keys to the item and the seller stay: those rows come from outside the statement.
alter table orders drop constraint if exists orders_payment_id_fkey;
alter table orders drop constraint if exists orders_buyer_id_fkey;
alter table legal_acceptances drop constraint if exists legal_acceptances_order_id_fkey;
