-- "Payable chains" (spec 2.1), still one definition, now with every rule: the seller accepts the
-- chain, has a payout address there whose contract exists (070), and, in Revision A, has linked a
-- wallet on that chain (060). 070 redefined the view without the Revision A clause.
create or replace view payable_chains as
  select p.agent_id, p.chain, p.address as pay_to
  from payout_addresses p
  join agents a on a.id = p.agent_id
  where p.chain = any (a.sales_chains)
    and p.deployed_at is not null
    and (coalesce((select value from deployment_settings where name = 'contract_revision'), 'B') = 'B'
         or exists (select 1 from linked_wallets w where w.agent_id = p.agent_id and w.chain = p.chain));
