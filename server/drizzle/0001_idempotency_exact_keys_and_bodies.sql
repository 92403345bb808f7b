ALTER TABLE `idempotency_keys` MODIFY COLUMN `idempotency_key` varbinary(255) NOT NULL;--> statement-breakpoint
ALTER TABLE `idempotency_keys` MODIFY COLUMN `response_body` mediumtext;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `response_headers` text;