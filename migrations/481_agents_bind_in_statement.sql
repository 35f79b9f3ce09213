-- An account's own address was bound by a row trigger on `agents` (migration 060, 477): a
-- PL/pgSQL call, a speculative insert (`on conflict do nothing`) and a plan of its own per new
-- account. Every insert of an account now writes the binding in its own statement, from the rows
-- the insert returned (`ownAddressBinding`, src/domain/accounts/accounts.ts: the first purchase's
-- provisioning and registration), as a plain insert: an account just made has no binding, so only
-- an address another agent holds conflicts, which fails the statement as the trigger did (23505).
drop trigger if exists agents_bind_address on agents;
drop function if exists bind_agent_address();
