-- A settlement a remote facilitator answered as failed may still move money: it may have broadcast
-- the transfer before giving up (a receipt wait that timed out), and the transfer can be mined
-- later. Such a payment (`failed`, error_code `payment_settlement_failed`) stays undecided while
-- `failure_final_at` is null: the reconciler asks the facilitator or the chain about it, at most
-- once per RECONCILE_STALE_SECONDS (`rechecked_at`: when it last asked, so a pass's limit rotates
-- through them). Mined: it is completed as an abandoned settled claim is (one order). Window closed
-- and the authorization unused: the failure is final (`failure_final_at` set), never asked again.
-- Rows failed before this migration start undecided: each is asked once more.
alter table x402_payments add column failure_final_at timestamptz;
alter table x402_payments add column rechecked_at timestamptz;
create index x402_payments_undecided_failures on x402_payments (coalesce(rechecked_at, updated_at))
  where status = 'failed' and failure_final_at is null;
