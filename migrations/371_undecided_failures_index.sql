-- Migration 370's partial index of undecided failures at settlement left out their error code, so
-- every payment failed for another reason (refused at verification, never settled) stayed in it
-- for good, re-read and filtered out by each reconciler pass, metrics scrape and purge check. The
-- index now holds exactly the rows `undecidedFailure` (src/domain/payments/store.ts) means.
drop index if exists x402_payments_undecided_failures;
create index x402_payments_undecided_failures on x402_payments (coalesce(rechecked_at, updated_at))
  where status = 'failed' and error_code = 'payment_settlement_failed' and failure_final_at is null;
