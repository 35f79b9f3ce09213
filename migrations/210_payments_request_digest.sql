-- What one paid authorization was used for: the SHA-256 (hex) of the operation, its route and
-- requirement and the content that defines the request (a listing's archive digest and metadata,
-- a purchase's item, chain and buyer). A replay of the authorization is answered from the stored
-- result only when its digest is this one; any other request with it is refused (409
-- `authorization_already_used`) before anything is stored. Rows written before stay null and are
-- compared by operation, resource and requirement, as then.
alter table x402_payments add column request_digest text
  check (request_digest is null or request_digest ~ '^[0-9a-f]{64}$');
