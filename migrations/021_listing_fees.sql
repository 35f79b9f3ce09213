-- The listing fee paid for each upload (spec 4.3: 0.01 USDC), written with the item in the same
-- transaction as the fulfilment of the paid operation; the listing invoice is rendered from it.
create table listing_fees (
  item_id      uuid primary key references items (id) on delete cascade,
  payment_id   uuid not null unique,
  payer        text not null,
  chain        text not null check (chain in ('base', 'polygon')),
  network      text not null,
  asset        text not null,
  pay_to       text not null,
  amount_micro bigint not null check (amount_micro > 0),
  transaction  text not null,
  paid_at      timestamptz not null default now()
);
