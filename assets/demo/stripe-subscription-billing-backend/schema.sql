create table subscriptions (customer_id text primary key, price_id text not null, status text not null, current_period_end timestamptz);
create table processed_events (event_id text primary key, processed_at timestamptz not null default now());
