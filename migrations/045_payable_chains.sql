-- "Payable chains", defined once (spec 2.1 `available_chains`): a seller can be paid on a chain
-- when it accepts sales there (agents.sales_chains) AND has a payout address on it. Item detail,
-- search, the acquire prompt and the completion's re-check all read this view; a later rule (for
-- example "the payout contract is deployed") changes here and nowhere else.
create view payable_chains as
  select p.agent_id, p.chain, p.address as pay_to
  from payout_addresses p
  join agents a on a.id = p.agent_id
  where p.chain = any (a.sales_chains);
