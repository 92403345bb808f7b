CREATE TABLE `batch_item_keys` (
	`company_id` bigint unsigned NOT NULL,
	`item_key` varbinary(255) NOT NULL,
	`fingerprint` char(64) NOT NULL,
	`status_code` int NOT NULL,
	`record_id` bigint unsigned NOT NULL,
	`action` varchar(16) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `batch_item_keys_company_id_item_key_pk` PRIMARY KEY(`company_id`,`item_key`)
);
--> statement-breakpoint
CREATE TABLE `company_counters` (
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(32) NOT NULL,
	`value` bigint NOT NULL DEFAULT 0,
	CONSTRAINT `company_counters_company_id_name_pk` PRIMARY KEY(`company_id`,`name`)
);
--> statement-breakpoint
CREATE TABLE `id_blocks` (
	`table_name` varchar(64) NOT NULL,
	`next_id` bigint unsigned NOT NULL,
	CONSTRAINT `id_blocks_table_name` PRIMARY KEY(`table_name`)
);
--> statement-breakpoint
CREATE INDEX `batch_item_keys_created` ON `batch_item_keys` (`created_at`);--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'events', `last_seq` FROM `event_sequences`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'events_purged', `purged_through` FROM `event_sequences` WHERE `purged_through` > 0;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'projects', COUNT(*) FROM `projects` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'workers', COUNT(*) FROM `workers` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'clients', COUNT(*) FROM `clients` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'estimates', COUNT(*) FROM `estimates` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'subcontractors', COUNT(*) FROM `subcontractors` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
--> statement-breakpoint
INSERT INTO `company_counters` (`company_id`, `name`, `value`) SELECT `company_id`, 'equipment', COUNT(*) FROM `equipment` WHERE `deleted_at` IS NULL GROUP BY `company_id`;
