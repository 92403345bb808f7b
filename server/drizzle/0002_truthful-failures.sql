-- Only a committed 2xx outcome binds a key now: in-flight markers and stored refusals go.
DELETE FROM `idempotency_keys` WHERE `status_code` IS NULL OR `status_code` NOT BETWEEN 200 AND 299;--> statement-breakpoint
CREATE TABLE `quota_usage` (
	`company_id` bigint unsigned NOT NULL,
	`resource` varchar(16) NOT NULL,
	`used` int unsigned NOT NULL DEFAULT 0,
	CONSTRAINT `quota_usage_company_id_resource_pk` PRIMARY KEY(`company_id`,`resource`)
);
--> statement-breakpoint
CREATE TABLE `rate_counts` (
	`company_id` bigint unsigned NOT NULL,
	`window_start` bigint unsigned NOT NULL,
	`process_id` char(36) NOT NULL,
	`hits` int unsigned NOT NULL DEFAULT 0,
	CONSTRAINT `rate_counts_company_id_window_start_process_id_pk` PRIMARY KEY(`company_id`,`window_start`,`process_id`)
);
--> statement-breakpoint
ALTER TABLE `idempotency_keys` MODIFY COLUMN `status_code` int NOT NULL;--> statement-breakpoint
ALTER TABLE `idempotency_keys` MODIFY COLUMN `response_headers` text NOT NULL;--> statement-breakpoint
ALTER TABLE `idempotency_keys` MODIFY COLUMN `response_body` mediumtext NOT NULL;--> statement-breakpoint
CREATE INDEX `rate_counts_window` ON `rate_counts` (`window_start`);--> statement-breakpoint
ALTER TABLE `idempotency_keys` DROP COLUMN `owner`;--> statement-breakpoint
ALTER TABLE `idempotency_keys` DROP COLUMN `locked_until`;