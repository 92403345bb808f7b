ALTER TABLE `api_tokens` ADD `name` varchar(100) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `scopes` varchar(1000) DEFAULT '*' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` datetime(3);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `last_used_at` datetime(3);--> statement-breakpoint
CREATE INDEX `api_tokens_revoked` ON `api_tokens` (`revoked_at`);--> statement-breakpoint
UPDATE `api_tokens` SET `name` = CONCAT('token ', `id`);
