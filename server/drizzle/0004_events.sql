CREATE TABLE `event_sequences` (
	`company_id` bigint unsigned NOT NULL,
	`last_seq` bigint unsigned NOT NULL,
	`purged_through` bigint unsigned NOT NULL DEFAULT 0,
	CONSTRAINT `event_sequences_company_id` PRIMARY KEY(`company_id`)
);
--> statement-breakpoint
CREATE TABLE `events` (
	`company_id` bigint unsigned NOT NULL,
	`seq` bigint unsigned NOT NULL,
	`id` char(30) NOT NULL,
	`type` varchar(64) NOT NULL,
	`resource` varchar(64) NOT NULL,
	`record_id` bigint unsigned NOT NULL,
	`data` mediumtext NOT NULL,
	`request_id` varchar(200) NOT NULL,
	`idempotency_key` varbinary(255),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `events_company_id_seq_pk` PRIMARY KEY(`company_id`,`seq`)
);
--> statement-breakpoint
CREATE INDEX `events_record` ON `events` (`company_id`,`resource`,`record_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);