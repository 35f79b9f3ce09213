-- A purchase's authorization and its signature are public once its transfer is broadcast (the
-- calldata of `transferWithAuthorization`), so a replay of the same signed request proves nothing
-- an observer of the chain could not send. `answered_at`: when a request was first answered with
-- the payment's result (an order's download links); null while none has been. A replay is
-- answered with the result only when it carries its first request's payment identifier, a fresh
-- authorization of the payer, or when no request has been answered yet (a payment completed out of
-- band: by the reconciler, a crash recovery, a settlement that was pending); otherwise it gets the
-- order's id and links come from the owner's identity-proved routes (docs/payments-edges.md).
--
-- Rows completed before this migration count as answered (a default, no rewrite of the table);
-- the few still open are set back to null, so their completion can still answer once.
alter table x402_payments add column answered_at timestamptz default now();
alter table x402_payments alter column answered_at drop default;
update x402_payments set answered_at = null where status <> 'completed';
