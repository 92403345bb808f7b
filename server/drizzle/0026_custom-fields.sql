-- Custom fields (docs/custom-fields.md): definitions are rows of custom_fields, never columns; each record keeps
-- its values in its own custom_fields text, and custom_field_values indexes them by type for filters, sorts and unique checks.
CREATE TABLE `custom_field_values` (
	`company_id` bigint unsigned NOT NULL,
	`field_id` bigint unsigned NOT NULL,
	`record_id` bigint unsigned NOT NULL,
	`value_text` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
	`value_number` decimal(24,6),
	`value_date` date,
	CONSTRAINT `custom_field_values_company_id_field_id_record_id_pk` PRIMARY KEY(`company_id`,`field_id`,`record_id`)
);
--> statement-breakpoint
CREATE TABLE `custom_fields` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`resource` varchar(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`key` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`label` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`label_key` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`type` varchar(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`required` boolean NOT NULL DEFAULT false,
	`unique` boolean NOT NULL DEFAULT false,
	`sensitive` boolean NOT NULL DEFAULT false,
	`options` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`description` varchar(1000) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `custom_fields_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `custom_fields_id` UNIQUE(`id`),
	CONSTRAINT `custom_fields_key` UNIQUE(`company_id`,`resource`,`key`),
	CONSTRAINT `custom_fields_label` UNIQUE(`company_id`,`resource`,`label_key`)
);
--> statement-breakpoint
ALTER TABLE `clients` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `equipment` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `estimates` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `projects` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `subcontractors` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `workers` ADD `custom_fields` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
CREATE INDEX `custom_field_values_text` ON `custom_field_values` (`company_id`,`field_id`,`value_text`,`record_id`);--> statement-breakpoint
CREATE INDEX `custom_field_values_number` ON `custom_field_values` (`company_id`,`field_id`,`value_number`,`record_id`);--> statement-breakpoint
CREATE INDEX `custom_field_values_date` ON `custom_field_values` (`company_id`,`field_id`,`value_date`,`record_id`);