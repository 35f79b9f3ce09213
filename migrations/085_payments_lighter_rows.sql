-- A payment's requirement is the one its signed payload names (`payload.accepted` is pinned to the
-- requirement this server issued), so it is no longer stored twice: new rows leave `requirements`
-- null. Older rows keep theirs.
alter table x402_payments alter column requirements drop not null;
