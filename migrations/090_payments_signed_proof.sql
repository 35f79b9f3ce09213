-- A payment row keeps, of the x402 payload, only what the payer signed: the EIP-3009 authorization
-- as sent and its signature (`{ signature, authorization }`). The payload's `accepted` is pinned to
-- the requirement this server issued, which the row already holds (network, asset, pay_to,
-- amount_micro; the item it was bound to is in `context`), and its `resource` is `resource`.
-- Without the second copy a purchase's row stays under the TOAST threshold (about 2 kB), so its
-- insert no longer tries to compress it. Rows written before keep the whole payload.
comment on column x402_payments.payload is
  'What the payer signed: { signature, authorization } (EIP-3009, as sent). Rows before migration 090 hold the whole x402 payload.';
