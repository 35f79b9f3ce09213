-- The reconciler's passes rotate through every unresolved payment, not only failures at settlement
-- (migration 370): a claim left pending (a facilitator that never answers) or abandoned while
-- settling, and one whose completion keeps failing, records `rechecked_at` when a pass asked about
-- it and it stayed unresolved, and goes behind the others (a pass takes the least recently asked
-- first), so a hundred stuck claims no longer fill every pass. This index serves that order for
-- open claims as x402_payments_undecided_failures does for failures.
create index x402_payments_open_claims on x402_payments (coalesce(rechecked_at, updated_at))
  where status in ('settling', 'pending', 'settled');
