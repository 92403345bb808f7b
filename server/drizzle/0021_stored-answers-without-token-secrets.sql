-- A token's secret is kept only as its hash: the stored answers of token creates (replayed to a retry with the same Idempotency-Key) lose the secret they held, "token": null instead.
UPDATE `idempotency_keys` SET `response_body` = REGEXP_REPLACE(`response_body`, '"token":"erp_[A-Za-z0-9_-]+"', '"token":null') WHERE `response_body` LIKE '{"data":{"id":%,"name":%,"scopes":[%"token":"erp\_%';
