-- x402 `payment-identifier` extension (issue 27): a client-chosen id (16-128 of [A-Za-z0-9_-]) in
-- a paid payload's `extensions`, kept per payer. The same id again with a payment for the same
-- request (`request_digest`, as x402_payments computes it: operation, route and resource, network,
-- asset, pay_to, amount and the request's content) answers the payment it first came with
-- (`payment_id`), even when signed afresh; with another request it is refused (409
-- `payment_identifier_conflict`) before anything is claimed or settled. The primary key lets one
-- of any number of concurrent requests with one id through, across processes and replicas.
-- A row is written in the same statement as its payment's claim and deleted when that claim is
-- released (nothing moved); `valid_before` is the first payment's authorization window, after which
-- the row is kept X402_PAYMENT_ID_RETENTION_SECONDS and then pruned by the reconciliation pass.
-- No foreign key to x402_payments: both rows come from one statement and payments are never
-- deleted (as migration 088 reasons for orders).
create table x402_payment_identifiers (
  payer          text not null check (payer ~ '^0x[0-9a-f]{40}$'),
  identifier     text not null check (identifier ~ '^[A-Za-z0-9_-]{16,128}$'),
  payment_id     uuid not null,
  resource       text not null,
  request_digest text not null check (request_digest ~ '^[0-9a-f]{64}$'),
  valid_before   timestamptz not null,
  created_at     timestamptz not null default now(),
  primary key (payer, identifier)
);
create index x402_payment_identifiers_payment on x402_payment_identifiers (payment_id);
create index x402_payment_identifiers_expiry on x402_payment_identifiers (valid_before);
