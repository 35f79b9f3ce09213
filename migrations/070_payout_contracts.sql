-- Payout contracts on chains (PAYMENT_RAIL=chain): a payout address is assigned at provisioning
-- (its CREATE2 address is known at once) but can be paid only once the contract exists there
-- (spec 2.1 `available_chains`, 2.7 `payout_address_missing`). `deployed_at` records when it did;
-- on the dev ledger addresses are payable at once and provisioning sets it immediately.
alter table payout_addresses add column deployed_at timestamptz;
update payout_addresses set deployed_at = created_at;
-- The deployer's work list: addresses still waiting for their contract.
create index payout_addresses_undeployed on payout_addresses (created_at) where deployed_at is null;

-- Payable: accepted by the seller AND the payout contract exists on that chain.
create or replace view payable_chains as
  select p.agent_id, p.chain, p.address as pay_to
  from payout_addresses p
  join agents a on a.id = p.agent_id
  where p.chain = any (a.sales_chains) and p.deployed_at is not null;
